package dev.jooqoutbox.console;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.NewMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The rows the console's tests show: messages written, claimed, dead-lettered. A message the tests
 * claim is written with {@link #writeRow}, as a row of outbox_message on every database: the
 * row-state repository claims only those (on PostgreSQL what the event log's copies are). {@link
 * #write} writes with {@code Outbox}, wherever the database keeps it.
 */
abstract class ConsoleFixture extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);

  ConsoleFixture(TestDatabase.Kind kind) {
    super(kind);
  }

  /** A header every written message carries: markup, to be shown as text. */
  static final String HEADER_MARKUP = "<img src=x onerror=alert(3)>";

  String write(String aggregate, String topic) {
    return db.dsl()
        .transactionResult(
            tx ->
                outbox
                    .message(aggregate, topic, Map.of("n", 1))
                    .header("source", HEADER_MARKUP)
                    .write(tx.dsl()));
  }

  /** As {@link #write}, as a row of outbox_message on every database, for {@link #claim}. */
  String writeRow(String aggregate, String topic) {
    String id = UUID.randomUUID().toString();
    Instant now = clock.instant();
    NewMessage m =
        new NewMessage(
            id, aggregate, topic, "{\"n\":1}", Map.of("source", HEADER_MARKUP), now, now);
    db.dsl().transaction(tx -> repository.insert(tx.dsl(), m));
    return id;
  }

  /** Claims the next ready message of {@code topic} with the token {@code token}. */
  OutboxMessage claim(String topic, String token) {
    return repository.claim(Set.of(topic), 1, LEASE, token, clock.instant()).get(0);
  }

  /** Claims the next ready message of {@code topic} and dead-letters it with {@code error}. */
  void deadLetterNext(String topic, String error) {
    OutboxMessage m = claim(topic, "dead");
    repository.deadLetter("dead", m.seq(), error, clock.instant());
  }

  /** Claims the next ready message of {@code topic} and makes its outcome unknown. */
  void unknownNext(String topic, String remoteRef) {
    OutboxMessage m = claim(topic, "unknown");
    repository
        .outcomes()
        .markUnknown("unknown", m.seq(), remoteRef, "timed out", clock.instant(), clock.instant());
  }
}
