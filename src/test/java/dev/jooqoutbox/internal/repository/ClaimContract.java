package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JooqOutboxRepository#claim}: which messages are ready, in which order, and what a claim
 * does to them.
 */
abstract class ClaimContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Set<String> TOPICS = Set.of("t");

  private ClaimRows rows;

  ClaimContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void setUp() {
    rows = new ClaimRows(db.dsl(), outbox);
  }

  @Test
  void claimsReadyMessagesInSeqOrderUpToTheLimit() {
    long first = write("a", "t");
    long second = write("b", "t");
    long third = write("c", "t");
    long fourth = write("d", "t");
    long fifth = write("e", "t");

    List<OutboxMessage> batch = claim("token-1", 3);
    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(first, second, third);
    assertThat(batch).extracting(OutboxMessage::aggregate).containsExactly("a", "b", "c");
    assertThat(batch).extracting(OutboxMessage::attempt).containsOnly(1);

    assertThat(claim("token-2", 10)).extracting(OutboxMessage::seq).containsExactly(fourth, fifth);
    assertThat(claim("token-3", 10)).isEmpty();
  }

  @Test
  void claimLeasesTheRowsToTheToken() {
    long seq = write("a", "t");

    claim("token-1", 10);

    OutboxMessageRecord row = row(seq);
    assertThat(row.getClaimToken()).isEqualTo("token-1");
    assertThat(row.getLockedUntil()).isEqualTo(START.plus(LEASE));
    assertThat(row.getAttempts()).isEqualTo(1);
    assertThat(row.getSentAt()).isNull();
    assertThat(row.getDeadAt()).isNull();
  }

  @Test
  void nothingToClaimForNoTopicsOrNoRoom() {
    write("a", "t");
    assertThat(repository.claim(Set.of(), 10, LEASE, "token", clock.instant())).isEmpty();
    assertThat(repository.claim(TOPICS, 0, LEASE, "token", clock.instant())).isEmpty();
    assertThat(row(seqOfAggregate("a")).getAttempts()).isZero();
  }

  @Test
  void claimsOnlyTheRequestedTopics() {
    long orders = write("a", "orders");
    write("b", "payments");
    long shipments = write("c", "shipments.v2");

    List<OutboxMessage> batch =
        repository.claim(Set.of("orders", "shipments.v2"), 10, LEASE, "token", clock.instant());

    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(orders, shipments);
    assertThat(batch).extracting(OutboxMessage::topic).containsExactly("orders", "shipments.v2");
    assertThat(repository.claim(Set.of("payment"), 10, LEASE, "token", clock.instant())).isEmpty();
  }

  @Test
  void messageIsClaimableFromItsAvailableAt() {
    long delayed = writeDelayed("a", Duration.ofMinutes(5));
    long due = write("b", "t");

    assertThat(claim("token-1", 10)).extracting(OutboxMessage::seq).containsExactly(due);
    repository.markSent("token-1", List.of(due), clock.instant());

    clock.advance(Duration.ofMinutes(5).minusMillis(1));
    assertThat(claim("token-2", 10)).isEmpty();

    clock.advance(Duration.ofMillis(1));
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(delayed);
  }

  @Test
  void expiredLeaseMakesTheRowClaimableAgainWithItsAttemptCounted() {
    long seq = write("a", "t");
    assertThat(claim("token-1", 10)).extracting(OutboxMessage::attempt).containsExactly(1);

    clock.advance(LEASE.minusMillis(1));
    assertThat(claim("token-2", 10)).as("leased until %s", START.plus(LEASE)).isEmpty();

    clock.advance(Duration.ofMillis(1));
    List<OutboxMessage> again = claim("token-3", 10);
    assertThat(again).extracting(OutboxMessage::seq).containsExactly(seq);
    assertThat(again).extracting(OutboxMessage::attempt).containsExactly(2);
    assertThat(row(seq).getClaimToken()).isEqualTo("token-3");
    assertThat(row(seq).getLockedUntil()).isEqualTo(clock.instant().plus(LEASE));

    clock.advance(LEASE);
    assertThat(claim("token-4", 10)).extracting(OutboxMessage::attempt).containsExactly(3);
  }

  @Test
  void laterMessageOfAnAggregateWaitsForAnOlderPendingOne() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    long a2 = write("a", "t");
    long b2 = write("b", "t");

    // a2 and b2 are not ready while a1 and b1 are pending, even in the same batch.
    List<OutboxMessage> batch = claim("token-1", 10);
    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(a1, b1);

    // Leased: still blocking.
    assertThat(claim("token-2", 10)).isEmpty();

    repository.markSent("token-1", List.of(b1), clock.instant());
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(b2);

    repository.markSent("token-1", List.of(a1), clock.instant());
    assertThat(claim("token-4", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void backingOffMessageBlocksItsAggregateUntilSettled() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    claim("token-1", 10);
    assertThat(repository.retryLater("token-1", a1, "boom", clock.instant().plusSeconds(60)))
        .isTrue();

    // The lease is gone, the older message backs off: the later one still waits.
    assertThat(claim("token-2", 10)).isEmpty();
    clock.advance(Duration.ofSeconds(30));
    assertThat(claim("token-3", 10)).isEmpty();

    clock.advance(Duration.ofSeconds(30));
    List<OutboxMessage> retry = claim("token-4", 10);
    assertThat(retry).extracting(OutboxMessage::seq).containsExactly(a1);
    assertThat(retry).extracting(OutboxMessage::attempt).containsExactly(2);

    repository.markSent("token-4", List.of(a1), clock.instant());
    assertThat(claim("token-5", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void deadOlderMessageNoLongerBlocksItsAggregate() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    claim("token-1", 10);
    assertThat(claim("token-2", 10)).isEmpty();

    assertThat(repository.deadLetter("token-1", a1, "poison", clock.instant())).isTrue();

    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void olderPendingMessageOfAnotherTopicBlocksToo() {
    long a1 = write("a", "other");
    long a2 = write("a", "t");

    // Order is per aggregate across topics: a relay for "t" must not overtake a1.
    assertThat(claim("token-1", 10)).isEmpty();

    repository.claim(Set.of("other"), 10, LEASE, "token-2", clock.instant());
    repository.markSent("token-2", List.of(a1), clock.instant());
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void notYetAvailableOlderMessageBlocksALaterOne() {
    long a1 = writeDelayed("a", Duration.ofMinutes(1));
    long a2 = write("a", "t");

    assertThat(claim("token-1", 10)).isEmpty();

    clock.advance(Duration.ofMinutes(1));
    assertThat(claim("token-2", 10)).extracting(OutboxMessage::seq).containsExactly(a1);
    repository.markSent("token-2", List.of(a1), clock.instant());
    assertThat(claim("token-3", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void inFlightClaimOfAnOlderMessageIsSkippedAndStillBlocksItsAggregate() throws Exception {
    long a1 = write("a", "t");
    write("a", "t");
    long b1 = write("b", "t");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      // Another relay's claim of a1, not yet committed: it holds a1's row lock on PostgreSQL and
      // MariaDB, the write lock on SQLite.
      ClaimRows.leaseUncommitted(connection, db.dialect(), a1, clock.instant().plus(LEASE));

      Future<List<OutboxMessage>> claim = other.submit(() -> claim("token", 10));
      if (db.kind() != TestDatabase.Kind.SQLITE) {
        // Skip-locked: the claim passes over a1 at once, and a2 still waits behind it.
        assertThat(claim.get(10, TimeUnit.SECONDS))
            .extracting(OutboxMessage::seq)
            .containsExactly(b1);
      }
      connection.commit();
      // SQLite's claim waited for the write lock, then found a1 leased.
      assertThat(claim.get(10, TimeUnit.SECONDS))
          .extracting(OutboxMessage::seq)
          .containsExactly(b1);
      connection.setAutoCommit(true);
    } finally {
      other.shutdownNow();
    }
    assertThat(row(a1).getClaimToken()).isEqualTo("in-flight");
  }

  @Test
  void aggregatesFlowInParallel() {
    for (int i = 0; i < 3; i++) {
      for (String aggregate : List.of("a", "b", "c", "d")) {
        write(aggregate, "t");
      }
    }
    for (int round = 0; round < 3; round++) {
      List<OutboxMessage> batch = claim("token-" + round, 100);
      assertThat(batch).extracting(OutboxMessage::aggregate).containsExactly("a", "b", "c", "d");
      repository.markSent(
          "token-" + round, batch.stream().map(OutboxMessage::seq).toList(), clock.instant());
    }
    assertThat(claim("token-last", 100)).isEmpty();
  }

  @Test
  void findsReadyAggregatesBehindABusyAggregateThatFillsTheScanWindow() {
    // The front of the backlog is one aggregate: its head is leased, the rest of it is blocked,
    // and it is longer than the seq-order window the first claim pass looks at.
    int busy = ClaimQueries.scanWindow(10) + 50;
    long busyHead = writeMany("busy", busy);
    long quietOne = write("quiet-1", "t");
    long quietTwo = write("quiet-2", "t");
    assertThat(claim("token-busy", 1)).extracting(OutboxMessage::seq).containsExactly(busyHead);

    List<OutboxMessage> batch = claim("token-2", 10);

    assertThat(batch).extracting(OutboxMessage::seq).containsExactly(quietOne, quietTwo);
    assertThat(claim("token-3", 10)).isEmpty();
  }

  @Test
  void aBatchFromBothPassesHoldsOneMessagePerAggregateInSeqOrder() {
    long first = write("a", "t");
    writeMany("a", ClaimQueries.scanWindow(10));
    long beyond = write("b", "t");

    assertThat(claim("token-1", 10)).extracting(OutboxMessage::seq).containsExactly(first, beyond);
  }

  // ---------------------------------------------------------------- helpers

  private List<OutboxMessage> claim(String token, int limit) {
    return repository.claim(TOPICS, limit, LEASE, token, clock.instant());
  }

  private long write(String aggregate, String topic) {
    return rows.write(aggregate, topic);
  }

  /**
   * Writes {@code count} messages of one aggregate in one multi-row insert; returns the first seq.
   */
  private long writeMany(String aggregate, int count) {
    BulkMessages.insert(
        db.dsl(),
        count,
        i ->
            new BulkMessages.Row(
                aggregate + "-" + i + "-" + UUID.randomUUID(), aggregate, "t", "{}", START));
    return db.dsl()
        .select(DSL.min(OUTBOX_MESSAGE.SEQ))
        .from(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.AGGREGATE.eq(aggregate))
        .and(OUTBOX_MESSAGE.SENT_AT.isNull())
        .fetchSingle()
        .value1();
  }

  private long writeDelayed(String aggregate, Duration delay) {
    return rows.writeDelayed(aggregate, delay);
  }
}
