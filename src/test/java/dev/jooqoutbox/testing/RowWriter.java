package dev.jooqoutbox.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.NewMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Writes messages as rows of outbox_message through the row-state repository: what {@code
 * Outbox.write} does on MariaDB and SQLite, and on PostgreSQL what the event log's copies are (a
 * message that needs a state of its own) and what every write was before the log. For the row-state
 * store's own tests, which must run on the three databases.
 */
public final class RowWriter {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final DSLContext dsl;
  private final Clock clock;
  private final JooqOutboxRepository repository;

  public RowWriter(DSLContext dsl, Clock clock) {
    this.dsl = dsl;
    this.clock = clock;
    this.repository = new JooqOutboxRepository(dsl);
  }

  /** Writes a message due now in its own committed transaction; returns its seq. */
  public long write(String aggregate, String topic, Object payload) {
    return write(aggregate, topic, payload, Duration.ZERO);
  }

  /** Writes a message due {@code delay} from now; returns its seq. */
  public long write(String aggregate, String topic, Object payload, Duration delay) {
    String id = UUID.randomUUID().toString();
    Instant now = clock.instant();
    NewMessage m;
    try {
      m =
          new NewMessage(
              id,
              aggregate,
              topic,
              MAPPER.writeValueAsString(payload),
              Map.of(),
              now,
              now.plus(delay));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
    dsl.transaction(tx -> repository.insert(tx.dsl(), m));
    return dsl.select(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE.SEQ)
        .from(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE)
        .where(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE.ID.eq(id))
        .fetchSingle(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE.SEQ);
  }
}
