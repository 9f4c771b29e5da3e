package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.jooq.JSON;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JooqOutboxRepository#claim(Set, int, int, Duration, String, Instant)} with runs: which of
 * an aggregate's messages one claim takes together, where a run stops, and that it never skips a
 * message. Also the claim's floor ({@link ClaimFloor}): a row that becomes pending below it is
 * still found, and still holds its aggregate back.
 */
abstract class ClaimRunContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Set<String> TOPICS = Set.of("t");

  private ClaimRows rows;

  /** The time the claim's floor refreshes by; moved by hand. */
  private final AtomicLong ticker = new AtomicLong();

  ClaimRunContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void buildOutbox() {
    repository = new JooqOutboxRepository(db.dsl(), new ObjectMapper(), ticker::get);
    rows = new ClaimRows(db.dsl(), outbox);
  }

  @Test
  void runOfOneAggregateInSeqOrderUpToMaxRun() {
    List<Long> a = writeAll("a", 5);

    List<OutboxMessage> first = claim("token-1", 10, 3);
    assertThat(first).extracting(OutboxMessage::seq).containsExactlyElementsOf(a.subList(0, 3));
    assertThat(first).extracting(OutboxMessage::attempt).containsOnly(1);
    for (long seq : a.subList(0, 3)) {
      assertThat(row(seq).getClaimToken()).isEqualTo("token-1");
      assertThat(row(seq).getLockedUntil()).isEqualTo(START.plus(LEASE));
    }
    // The rest waits while the run is leased.
    assertThat(claim("token-2", 10, 3)).isEmpty();

    markSent("token-1", first);
    assertThat(claim("token-3", 10, 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(3, 5));
  }

  @Test
  void limitSpansSeveralAggregatesInSeqOrder() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    long a2 = write("a", "t");
    long b2 = write("b", "t");
    long a3 = write("a", "t");
    write("b", "t");
    long c1 = write("c", "t");

    // The five oldest of the runs, whichever aggregate they belong to.
    assertThat(claim("token-1", 5, 3))
        .extracting(OutboxMessage::seq)
        .containsExactly(a1, b1, a2, b2, a3);
    // b3 is ready but its aggregate's older messages are leased: nothing of b, nothing of a.
    assertThat(claim("token-2", 5, 3)).extracting(OutboxMessage::seq).containsExactly(c1);
  }

  @Test
  void maxRunOneTakesTheOldestMessageOfEachAggregate() {
    long a1 = write("a", "t");
    write("a", "t");
    long b1 = write("b", "t");

    assertThat(claim("token", 10, 1)).extracting(OutboxMessage::seq).containsExactly(a1, b1);
  }

  @Test
  void runStopsBeforeAMessageNotYetAvailable() {
    long a1 = write("a", "t");
    long a2 = writeDelayed("a", Duration.ofMinutes(1));
    long a3 = write("a", "t");

    List<OutboxMessage> first = claim("token-1", 10, 5);
    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1);
    assertThat(row(a3).getClaimToken()).isNull();
    markSent("token-1", first);
    assertThat(claim("token-2", 10, 5)).isEmpty();

    clock.advance(Duration.ofMinutes(1));
    assertThat(claim("token-3", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a2, a3);
  }

  @Test
  void runStopsBeforeAMessageLeasedByAnotherClaim() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    // A lease on a2 while a1 is pending: what another relay's released run can leave behind.
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.CLAIM_TOKEN, "other")
        .set(OUTBOX_MESSAGE.LOCKED_UNTIL, START.plus(LEASE))
        .where(OUTBOX_MESSAGE.SEQ.eq(a2))
        .execute();

    assertThat(claim("token", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a1);
    assertThat(row(a3).getClaimToken()).isNull();
    assertThat(row(a3).getAttempts()).isZero();
  }

  @Test
  void runStopsBeforeAMessageOfATopicNotClaimed() {
    long a1 = write("a", "t");
    long a2 = write("a", "other");
    long a3 = write("a", "t");

    List<OutboxMessage> first = claim("token-1", 10, 5);
    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1);
    repository.release("token-1", List.of(a1));

    assertThat(repository.claim(Set.of("t", "other"), 10, 5, LEASE, "token-2", clock.instant()))
        .extracting(OutboxMessage::seq)
        .containsExactly(a1, a2, a3);
  }

  @Test
  void deadMessageInTheMiddleIsPassedOverAsItDoesNotHoldItsAggregateBack() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    claim("token-0", 10, 1);
    repository.release("token-0", List.of(a1));
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.DEAD_AT, START)
        .where(OUTBOX_MESSAGE.SEQ.eq(a2))
        .execute();

    // Dead is not pending: as a dead oldest message lets the next one go, a dead one in the middle
    // of a run lets the run go on.
    assertThat(claim("token-1", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a1, a3);
  }

  @Test
  void runIsCutBeforeARowAnotherClaimHoldsLockedAndTheRowsAfterItAreNotLeased() throws Exception {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    long b1 = write("b", "t");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      // Another relay's claim of a2, not yet committed: it holds a2's row lock on PostgreSQL and
      // MariaDB (this claim skips a2 although it saw it ready), the write lock on SQLite (this
      // claim waits, then finds a2 leased).
      ClaimRows.leaseUncommitted(connection, db.dialect(), a2, clock.instant().plus(LEASE));

      Future<List<OutboxMessage>> claim = other.submit(() -> claim("token", 10, 5));
      if (db.kind() != TestDatabase.Kind.SQLITE) {
        assertThat(claim.get(10, TimeUnit.SECONDS))
            .extracting(OutboxMessage::seq)
            .containsExactly(a1, b1);
      }
      connection.commit();
      assertThat(claim.get(10, TimeUnit.SECONDS))
          .extracting(OutboxMessage::seq)
          .containsExactly(a1, b1);
      connection.setAutoCommit(true);
    } finally {
      other.shutdownNow();
    }
    // a3 comes after the row the claim could not take: not leased, its attempt not counted.
    assertThat(row(a3).getClaimToken()).isNull();
    assertThat(row(a3).getLockedUntil()).isNull();
    assertThat(row(a3).getAttempts()).isZero();
    assertThat(row(a2).getClaimToken()).isEqualTo("in-flight");
  }

  @Test
  void corruptRowInARunIsDeadLetteredAndTheRestOfItsRunReleased() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    long b1 = write("b", "t");
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.HEADERS, JSON.json("[1, 2]"))
        .where(OUTBOX_MESSAGE.SEQ.eq(a2))
        .execute();

    List<OutboxMessage> first = claim("token-1", 10, 5);

    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1, b1);
    assertThat(row(a2).getDeadAt()).isNotNull();
    assertThat(row(a2).getLastError()).contains("corrupt row");
    assertThat(row(a3).getClaimToken()).isNull();
    assertThat(row(a3).getAttempts()).isZero();
    // a3 is claimed afresh behind the dead letter, once a1 is settled.
    assertThat(claim("token-2", 10, 5)).isEmpty();
    markSent("token-1", first);
    assertThat(claim("token-3", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a3);
  }

  @Test
  void corruptOldestMessageReleasesItsWholeRun() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.HEADERS, JSON.json("\"text\""))
        .where(OUTBOX_MESSAGE.SEQ.eq(a1))
        .execute();

    assertThat(claim("token-1", 10, 5)).isEmpty();
    assertThat(row(a1).getDeadAt()).isNotNull();
    assertThat(row(a2).getClaimToken()).isNull();
    assertThat(claim("token-2", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void maxRunBelowOneIsRefused() {
    assertThatThrownBy(() -> claim("token", 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxRun must be at least 1, was 0");
  }

  // ---------------------------------------------------------------- the floor

  @Test
  void rowRequeuedBelowTheFloorStillHoldsItsAggregateBackAndIsFound() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    long a2 = write("a", "t");
    long c1 = write("c", "t");
    List<OutboxMessage> first = claim("token-1", 10, 1);
    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1, b1, c1);
    repository.deadLetter("token-1", a1, "poison", clock.instant());
    markSent("token-1", first.subList(1, 3));
    // Two refreshes later the floor is the oldest pending seq seen at the first: a2.
    refreshFloor();
    refreshFloor();
    long b2 = write("b", "t");
    assertThat(repository.requeue(row(a1).getId(), clock.instant())).isTrue();

    // a1 is pending again, below the floor: a2 must not overtake it, and a1 is found. Where the
    // window reads from the floor (MariaDB, SQLite) a claim it cannot fill finds a1 by the head
    // scan, which has no floor; on PostgreSQL the claim reads the parked rows below its floor
    // first.
    List<Long> taken = new ArrayList<>();
    claim("token-2", 1, 1).forEach(m -> taken.add(m.seq()));
    claim("token-3", 10, 1).forEach(m -> taken.add(m.seq()));
    assertThat(taken).containsExactlyInAnyOrder(a1, b2);
    assertThat(row(a2).getClaimToken()).isNull();
  }

  @Test
  void rowRequeuedBelowTheFloorIsClaimedBeforeLaterRowsOfItsNewWindow() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    claim("token-1", 10, 1);
    repository.deadLetter("token-1", a1, "poison", clock.instant());
    repository.markSent("token-1", List.of(b1), clock.instant());
    List<Long> c = writeAll("c", 3);
    refreshFloor();
    refreshFloor();
    assertThat(repository.requeue(row(a1).getId(), clock.instant())).isTrue();
    if (db.kind() == TestDatabase.Kind.POSTGRES) {
      // The claim reads the parked rows below its HorizonFloor first: a1 comes before c's run.
      assertThat(claim("token-2", 3, 3))
          .extracting(OutboxMessage::seq)
          .containsExactly(a1, c.get(0), c.get(1));
      return;
    }
    // The window starts at c's first message: a full claim of c's run leaves a1 out.
    assertThat(claim("token-2", 3, 3)).extracting(OutboxMessage::seq).containsExactlyElementsOf(c);

    refreshFloor();
    refreshFloor();
    List<Long> d = writeAll("d", 2);
    // Now a1 is the oldest pending row the floor was taken from, and the window starts there.
    assertThat(claim("token-3", 2, 3)).extracting(OutboxMessage::seq).containsExactly(a1, d.get(0));
  }

  // ---------------------------------------------------------------- helpers

  /** Lets a floor period pass and claims nothing, which refreshes the floor. */
  private void refreshFloor() {
    ticker.addAndGet(ClaimFloor.PERIOD.toNanos() * 100);
    repository.claim(Set.of("no-such-topic"), 1, 1, LEASE, "refresh", clock.instant());
  }

  private List<OutboxMessage> claim(String token, int limit, int maxRun) {
    return repository.claim(TOPICS, limit, maxRun, LEASE, token, clock.instant());
  }

  private void markSent(String token, List<OutboxMessage> messages) {
    assertThat(
            repository.markSent(
                token, messages.stream().map(OutboxMessage::seq).toList(), clock.instant()))
        .isEqualTo(messages.size());
  }

  private long write(String aggregate, String topic) {
    return rows.write(aggregate, topic);
  }

  private List<Long> writeAll(String aggregate, int count) {
    return IntStream.range(0, count).mapToObj(i -> write(aggregate, "t")).toList();
  }

  private long writeDelayed(String aggregate, Duration delay) {
    return rows.writeDelayed(aggregate, delay);
  }
}
