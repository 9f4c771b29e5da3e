package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * A contract said through the relay's store ({@link RelayStore}) only, so that it runs on the three
 * databases and on the model in memory ({@code ReferenceStore}) alike: each subclass opens one
 * {@link StoreSubject}, emptied before each test. What a simulation of the engine shows on the
 * model then holds on the databases as far as these contracts reach.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreContract {

  static final Duration LEASE = Duration.ofSeconds(30);

  private StoreSubject subject;

  /** The store under test, one per class. */
  abstract StoreSubject open();

  @BeforeAll
  void openSubject() {
    subject = open();
  }

  @AfterAll
  void closeSubject() {
    subject.close();
  }

  @BeforeEach
  void resetSubject() {
    subject.reset();
  }

  final StoreSubject subject() {
    return subject;
  }

  final RelayStore store() {
    return subject.store();
  }

  final MutableClock clock() {
    return subject.clock();
  }

  final Instant now() {
    return subject.clock().instant();
  }

  /** Writes a message of {@code topic}, due now; returns its seq. */
  final long write(String aggregate, String topic) {
    return subject.write(aggregate, topic, Duration.ZERO);
  }

  /** Writes a message of topic "t" due {@code delay} from now; returns its seq. */
  final long writeDelayed(String aggregate, Duration delay) {
    return subject.write(aggregate, "t", delay);
  }

  /** Writes {@code count} messages of {@code aggregate} and topic "t"; returns their seqs. */
  final List<Long> writeAll(String aggregate, int count) {
    return IntStream.range(0, count).mapToObj(i -> write(aggregate, "t")).toList();
  }

  final ModelRow row(long seq) {
    return subject.row(seq);
  }

  /** A claim of {@code topics} leased for {@link #LEASE}, holding no earlier claims. */
  final List<OutboxMessage> claim(Set<String> topics, int limit, int maxRun, String token) {
    return store()
        .claim(new ClaimRequest(topics, limit, maxRun, LEASE, token, now(), HeldClaims.NONE));
  }

  static List<Long> seqs(List<OutboxMessage> messages) {
    return messages.stream().map(OutboxMessage::seq).toList();
  }
}
