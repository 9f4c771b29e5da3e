package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The limits of the per-aggregate order and of the lease, shown rather than promised: what breaks
 * the order (a dead letter requeued after newer messages went out, a row edited by hand, two
 * transactions writing one aggregate at once) and which clock decides a lease. docs/guarantees.md
 * states each of these and links here.
 *
 * <p>On PostgreSQL {@code Outbox.write} appends to the event log (changeset 009), and
 * outbox_message holds only the messages that need a state of their own. The tests of the row-state
 * store (they claim and settle with the repository itself, or edit a row) write their messages as
 * rows of outbox_message ({@link RowWriter}), what the log's copies are; the tests of what a writer
 * does (two transactions at once, a delay) write with {@code Outbox} and deliver with a relay, on
 * the event log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresOrderAndClockLimitsTest {

  private static final Set<String> TOPICS = Set.of("limits");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Instant T = Instant.parse("2026-06-01T12:00:00Z");

  /** How long {@link #deliver} waits for something to deliver: four of the window's periods. */
  private static final Duration WITHIN = Duration.ofSeconds(1);

  private TestDatabase db;
  private DSLContext dsl;
  private JooqOutboxRepository repository;
  private Outbox outbox;
  private RowWriter rows;

  @BeforeAll
  void createDatabase() {
    Faults.quietLogs();
    db = TestDatabase.migrated(TestDatabase.Kind.POSTGRES);
    dsl = db.dsl();
    repository = new JooqOutboxRepository(dsl);
    outbox = Outbox.builder(dsl).clock(Clock.fixed(T, ZoneOffset.UTC)).build();
    rows = new RowWriter(dsl, Clock.fixed(T, ZoneOffset.UTC));
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  @BeforeEach
  void emptyTables() {
    db.truncate();
  }

  @Test
  void requeuedOldDeadLetterIsDeliveredAfterNewerMessagesOfItsAggregate() {
    String first = writeRow("a", 1);
    String second = writeRow("a", 2);
    List<OutboxMessage> claimed = claim("relay", T);
    assertThat(ids(claimed)).containsExactly(first);
    repository.deadLetter("relay", claimed.get(0).seq(), "gave up", T);
    // The dead letter no longer holds its aggregate back: the newer message goes out.
    assertThat(ids(deliver(T))).containsExactly(second);

    // An operator requeues the old one: it is delivered now, after the newer one.
    assertThat(repository.requeue(first, T)).isTrue();
    assertThat(ids(deliver(T))).containsExactly(first);
  }

  @Test
  void rowEditedByHandIsDeliveredAgainOutOfOrder() {
    String first = writeRow("a", 1);
    String second = writeRow("a", 2);
    assertThat(ids(deliver(T))).containsExactly(first);
    assertThat(ids(deliver(T))).containsExactly(second);

    // "Resend the first one": a hand-written UPDATE clears sent_at.
    dsl.update(OUTBOX_MESSAGE)
        .setNull(OUTBOX_MESSAGE.SENT_AT)
        .where(OUTBOX_MESSAGE.ID.eq(first))
        .execute();
    assertThat(ids(deliver(T))).as("delivered again, after the newer one").containsExactly(first);
  }

  @Test
  void twoTransactionsWritingOneAggregateAtOnceAreDeliveredInCommitOrderNotSeqOrder()
      throws Exception {
    // seq is taken at insert; a later insert that commits first is delivered first. Written with
    // Outbox, as applications write: on PostgreSQL that appends to the event log, which a relay
    // reads in commit order (the writers' transaction ids between two snapshots of its own), not
    // by seq. So a relay delivers them, not the row-state repository (no writer inserts rows
    // there: its rows are the log's copies, made by relays).
    try (Connection slow = db.dataSource().getConnection()) {
      slow.setAutoCommit(false);
      DSLContext slowTx = DSL.using(slow, db.dialect());
      String older = outbox.write(slowTx, "a", "limits", Map.of("n", 1)); // lower seq, uncommitted
      String newer = write("a", 2); // higher seq, committed
      long olderSeq =
          slowTx
              .select(OUTBOX_EVENT.SEQ)
              .from(OUTBOX_EVENT)
              .where(OUTBOX_EVENT.ID.eq(older))
              .fetchSingle(OUTBOX_EVENT.SEQ);
      assertThat(olderSeq).isLessThan(seqOf(newer));

      List<String> delivered = new CopyOnWriteArrayList<>();
      try (OutboxRelay relay = relay(Clock.fixed(T, ZoneOffset.UTC), delivered)) {
        assertThat(drain(relay, delivered))
            .as("the uncommitted older one is invisible")
            .containsExactly(newer);
        slow.commit();
        assertThat(drain(relay, delivered)).containsExactly(older);
      }
    }
  }

  @Test
  void theClaimingRelaysClockDecidesWhenAnotherRelaysLeaseHasRunOut() {
    String id = writeRow("a", 1);
    // Relay A claims at its time T: the lease runs until T + 30 s, written by A's clock.
    assertThat(ids(claim("relay-a", T))).containsExactly(id);

    // Relay B's clock runs 29 s ahead: by its clock the lease has 1 s left, nothing to claim.
    Duration skew = LEASE.minusSeconds(1);
    assertThat(claim("relay-b", T.plus(skew))).isEmpty();

    // Once B's clock passes T + 30 s (A's clock says T + 1 s: A is barely one second into its
    // lease), B takes the message over. A can no longer settle it; it is delivered twice.
    Instant bNow = T.plus(LEASE);
    assertThat(ids(claim("relay-b", bNow))).containsExactly(id);
    long seq = seqOf(id);
    assertThat(repository.markSent("relay-a", List.of(seq), T.plusSeconds(1))).isZero();
    assertThat(repository.markSent("relay-b", List.of(seq), bNow)).isEqualTo(1);

    // The copy is harmless to a consumer that records the id with the inbox.
    Inbox inbox = new Inbox();
    boolean firstSeen = dsl.transactionResult(tx -> inbox.seen(tx.dsl(), "consumer", id));
    boolean secondSeen = dsl.transactionResult(tx -> inbox.seen(tx.dsl(), "consumer", id));
    assertThat(firstSeen).isFalse();
    assertThat(secondSeen).isTrue();
  }

  @Test
  void delayedMessageBecomesDueByTheClaimingRelaysClock() {
    // The row-state store: a delayed row is claimed once the claiming relay's clock reaches it.
    long seq = rows.write("a", "limits", Map.of(), Duration.ofMinutes(5));
    String id = idOf(seq);
    // A relay whose clock is 5 minutes ahead of the writer's delivers it at once.
    assertThat(claim("early", T.plus(Duration.ofMinutes(5)).minusMillis(1))).isEmpty();
    assertThat(ids(claim("early", T.plus(Duration.ofMinutes(5))))).containsExactly(id);
  }

  @Test
  void delayedMessageWrittenWithOutboxBecomesDueByTheRelaysClock() {
    // What a writer does: on PostgreSQL the delayed message goes to the event log, and the relay
    // that reads it copies it to outbox_message, due at its time: the same comparison as above, by
    // the relay's clock.
    String id =
        dsl.transactionResult(
            tx -> outbox.message("a", "limits", "{}").delay(Duration.ofMinutes(5)).write(tx.dsl()));
    List<String> delivered = new CopyOnWriteArrayList<>();
    Instant due = T.plus(Duration.ofMinutes(5));
    try (OutboxRelay before = relay(Clock.fixed(due.minusMillis(1), ZoneOffset.UTC), delivered)) {
      assertThat(drain(before, delivered)).isEmpty();
    }
    try (OutboxRelay early = relay(Clock.fixed(due, ZoneOffset.UTC), delivered)) {
      assertThat(drain(early, delivered)).containsExactly(id);
    }
  }

  /** Writes with {@code Outbox} (on PostgreSQL: to the event log); returns the id. */
  private String write(String aggregate, int n) {
    return dsl.transactionResult(tx -> outbox.write(tx.dsl(), aggregate, "limits", Map.of("n", n)));
  }

  /** Writes a row of outbox_message, for the repository's own claims; returns the id. */
  private String writeRow(String aggregate, int n) {
    return idOf(rows.write(aggregate, "limits", Map.of("n", n)));
  }

  private String idOf(long seq) {
    return dsl.select(OUTBOX_MESSAGE.ID)
        .from(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.SEQ.eq(seq))
        .fetchSingle(OUTBOX_MESSAGE.ID);
  }

  /** A relay of topic "limits" on {@code clock} that adds what it delivers to {@code delivered}. */
  private OutboxRelay relay(Clock clock, List<String> delivered) {
    return OutboxRelay.builder(dsl)
        .clock(clock)
        .listen(false)
        .handler("limits", m -> delivered.add(m.id()))
        .build();
  }

  /**
   * Drains {@code relay} until a drain delivers something or {@link #WITHIN} has passed; returns
   * what that drain delivered, in the order of its handler calls.
   */
  private static List<String> drain(OutboxRelay relay, List<String> delivered) {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      int before = delivered.size();
      relay.drainOnce(10);
      List<String> batch = new ArrayList<>(delivered.subList(before, delivered.size()));
      if (!batch.isEmpty() || System.nanoTime() - deadline >= 0) {
        return batch;
      }
      sleep(Duration.ofMillis(20));
    }
  }

  private List<OutboxMessage> claim(String token, Instant now) {
    return repository.claim(TOPICS, 10, LEASE, token, now);
  }

  /**
   * Claims and marks sent what is ready at {@code now}, as the relay's cycles do, until a cycle
   * delivers something or {@link #WITHIN} has passed. A row that becomes pending below where the
   * last claim's window started (a late commit, a row set back by hand) is read once the window
   * starts at the floor again: when the floor moves, and once a period (250 ms) at the latest
   * (docs/architecture.md, "A held xmin horizon").
   */
  private List<OutboxMessage> deliver(Instant now) {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      String token = "cycle-" + System.nanoTime();
      List<OutboxMessage> batch = repository.claim(TOPICS, 10, LEASE, token, now);
      repository.markSent(token, batch.stream().map(OutboxMessage::seq).toList(), now);
      if (!batch.isEmpty() || System.nanoTime() - deadline >= 0) {
        return batch;
      }
      sleep(Duration.ofMillis(20));
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The seq of message {@code id}, wherever stored (a row, or the event log). */
  private long seqOf(String id) {
    return StoredMessages.of(dsl).byId(id).seq();
  }

  private static List<String> ids(List<OutboxMessage> messages) {
    return messages.stream().map(OutboxMessage::id).toList();
  }
}
