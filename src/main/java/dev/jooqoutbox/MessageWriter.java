package dev.jooqoutbox;

import dev.jooqoutbox.internal.eventlog.EventWriter;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.internal.repository.OutboxContext;
import dev.jooqoutbox.internal.schema.SchemaChecks;
import dev.jooqoutbox.internal.tracing.Tracing;
import dev.jooqoutbox.internal.wakeup.WriterWakeup;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;

/**
 * The work behind {@link Outbox.MessageWrite#write(DSLContext)}: checks the message, inserts it on
 * the caller's transaction, tells a rewrite of a stored id with the same content from a duplicate,
 * and registers the wake-up of relays. Immutable and thread-safe, as {@link Outbox} is.
 */
final class MessageWriter {

  private final OutboxName name;
  private final JooqOutboxRepository repository;
  private final PayloadJson payloads;
  private final Clock clock;
  private final Supplier<String> ids;
  private final WriterWakeup wakeup; // null: notifyOnWrite off
  private final Tracing tracing;
  private final EventWriter events; // null where the database has no event log

  MessageWriter(
      OutboxName name,
      JooqOutboxRepository repository,
      PayloadJson payloads,
      Clock clock,
      Supplier<String> ids,
      WriterWakeup wakeup,
      Tracing tracing) {
    this.name = name;
    this.repository = repository;
    this.payloads = payloads;
    this.clock = clock;
    this.ids = ids;
    this.wakeup = wakeup;
    this.tracing = tracing;
    this.events = repository.appendsEvents() ? new EventWriter(repository) : null;
  }

  /**
   * Writes one message inside {@code given} and returns its id; {@code id} null draws a new one,
   * {@code availableAt} null makes it available {@code delay} after now.
   */
  String write(
      DSLContext given,
      String aggregate,
      String topic,
      Object payload,
      String id,
      Map<String, String> headers,
      Instant availableAt,
      Duration delay) {
    DSLContext tx = OutboxContext.of(Objects.requireNonNull(given, "tx"), name);
    MessageRules.checkAggregate(aggregate);
    MessageRules.checkTopic(topic);
    MessageRules.checkHeaders(headers);
    String json = payloads.toJson(payload);
    Instant now = clock.instant();
    NewMessage message =
        new NewMessage(
            id != null ? id : ids.get(),
            aggregate,
            topic,
            json,
            tracing.inject(headers),
            now,
            availableAt != null ? availableAt : now.plus(delay));
    requireTransaction(tx);
    boolean inserted;
    try {
      inserted = events != null ? events.insert(tx, message) : repository.insert(tx, message);
    } catch (DataAccessException e) {
      if (repository.isMissingTable(e)) {
        throw SchemaChecks.notMigrated(name, firstLine(e.getMessage()), e);
      }
      throw e;
    }
    if (!inserted) {
      NewMessage stored =
          (events != null
                  ? events.findStored(tx, message.id())
                  : repository.findStored(tx, message.id()))
              .orElseThrow(() -> new DuplicateMessageException(message.id()));
      if (!sameContent(stored, message, headers)) {
        throw new DuplicateMessageException(message.id());
      }
      return message.id();
    }
    if (wakeup != null) {
      wakeup.written(tx, topic);
    }
    return message.id();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "a table does not exist";
    }
    int end = message.indexOf('\n');
    return (end < 0 ? message : message.substring(0, end)).strip();
  }

  private static void requireTransaction(DSLContext tx) {
    boolean autoCommit = tx.connectionResult(Connection::getAutoCommit);
    if (autoCommit) {
      throw new NoTransactionException(
          "Outbox.write needs a transaction to join, but the connection is in autocommit mode:"
              + " write inside dsl.transaction(...) or a transaction your framework manages");
    }
  }

  /**
   * Whether a rewrite of a stored id has the same content. The trace context is not content: two
   * writes of one idempotency key from two traces are the same message, so the headers compare
   * without the propagators' fields the caller did not set.
   */
  private boolean sameContent(NewMessage stored, NewMessage given, Map<String, String> callers) {
    return stored.aggregate().equals(given.aggregate())
        && stored.topic().equals(given.topic())
        && tracing.withoutContext(stored.headers(), callers).equals(callers)
        && payloads.sameValue(stored.payloadJson(), given.payloadJson());
  }
}
