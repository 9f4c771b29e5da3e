package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jooq.ExecuteListener;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HorizonFloor}: the floor moves to the oldest pending row that is not parked once every
 * transaction that could still commit a row below it has ended, never past a row of a transaction
 * still running, and a claim reading from it keeps each aggregate's order for a row committed late
 * and for a parked row it passed.
 */
class PostgresHorizonFloorTest extends DatabaseFixture {

  private static final Set<String> TOPICS = Set.of("t");
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** The time the floor refreshes by; moved by hand. */
  private final AtomicLong ticker = new AtomicLong();

  private ClaimRows rows;
  private HorizonFloor floor;

  PostgresHorizonFloorTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @BeforeEach
  void setUp() {
    rows = new ClaimRows(db.dsl(), outbox);
    floor = new HorizonFloor(db.dsl(), OutboxDialect.of(db.dialect()), ticker::get);
    repository = new JooqOutboxRepository(db.dsl(), new ObjectMapper(), ticker::get);
  }

  @Test
  void theFloorFollowsTheOldestPendingRowButNeverPassesARowOfATransactionStillRunning()
      throws Exception {
    long x1 = rows.write("x1", "t");
    long x2 = rows.write("x2", "t");
    assertThat(refreshed()).as("before any transaction is known to have ended").isEqualTo(x1);
    deliver(x1);
    assertThat(refreshed()).isEqualTo(x2);
    deliver(x2);
    assertThat(refreshed()).as("nothing pending: past the newest row").isEqualTo(x2 + 1);

    try (Connection slow = db.dataSource().getConnection()) {
      slow.setAutoCommit(false);
      Outbox slowOutbox = Outbox.builder(DSL.using(slow, db.dialect())).clock(clock).build();
      String id = slowOutbox.write(DSL.using(slow, db.dialect()), "s", "t", Map.of("n", 1));
      long y1 = rows.write("y", "t");
      deliver(y1);
      assertThat(refreshed()).as("while the writer of a lower seq runs").isEqualTo(x2 + 1);
      slow.commit();
      assertThat(refreshed()).as("once it has ended").isEqualTo(rows.seqOfId(id));
    }
  }

  @Test
  void aTransactionIdleAfterWritingAnotherTableDoesNotHoldTheFloor() throws Exception {
    db.dsl().execute("create table if not exists floor_elsewhere (n int)");
    long x1 = rows.write("x1", "t");
    deliver(x1);
    assertThat(refreshed()).isEqualTo(x1 + 1);
    try (Connection idle = db.dataSource().getConnection()) {
      // A session idle in a transaction that wrote, but not to the outbox: it has a transaction
      // id older than every writer's after it, and it cannot commit a message.
      idle.setAutoCommit(false);
      DSL.using(idle, db.dialect()).execute("insert into floor_elsewhere values (1)");
      long y1 = rows.write("y", "t");
      long y2 = rows.write("y", "t");
      deliver(y1);
      assertThat(refreshed()).as("the floor follows the pending rows").isEqualTo(y2);
      deliver(y2);
      assertThat(refreshed()).isEqualTo(y2 + 1);
      idle.rollback();
    }
  }

  @Test
  void theLockTableIsReadOnlyWhileATransactionRunsPastARefresh() throws Exception {
    List<String> statements = new CopyOnWriteArrayList<>();
    floor =
        new HorizonFloor(
            DSL.using(
                db.dsl()
                    .configuration()
                    .derive(ExecuteListener.onExecuteStart(ctx -> statements.add(ctx.sql())))),
            OutboxDialect.of(db.dialect()),
            ticker::get);
    db.dsl().execute("create table if not exists floor_elsewhere (n int)");
    deliver(rows.write("x", "t"));
    refreshed();
    refreshed();
    assertThat(statements).as("no transaction runs long").noneMatch(q -> q.contains("pg_locks"));
    try (Connection idle = db.dataSource().getConnection()) {
      idle.setAutoCommit(false);
      DSL.using(idle, db.dialect()).execute("insert into floor_elsewhere values (1)");
      deliver(rows.write("y", "t"));
      refreshed();
      assertThat(statements).anyMatch(q -> q.contains("pg_locks"));
      idle.rollback();
    }
  }

  @Test
  void aRowCommittedLateStillHoldsItsAggregateBack() throws Exception {
    deliver(rows.write("x", "t"));
    refreshed();
    try (Connection slow = db.dataSource().getConnection()) {
      slow.setAutoCommit(false);
      Outbox slowOutbox = Outbox.builder(DSL.using(slow, db.dialect())).clock(clock).build();
      String id = slowOutbox.write(DSL.using(slow, db.dialect()), "a", "t", Map.of("n", 1));
      // Other rows come and go while the writer of a1 runs; the floor refreshes.
      for (int i = 0; i < 3; i++) {
        long b = rows.write("b", "t");
        ticker.addAndGet(HorizonFloor.PERIOD.toNanos());
        List<OutboxMessage> claimed = claim("relay", 10);
        assertThat(claimed).extracting(OutboxMessage::seq).containsExactly(b);
        repository.markSent("relay", List.of(b), clock.instant());
      }
      slow.commit();
      long a1 = rows.seqOfId(id);
      long a2 = rows.write("a", "t");
      ticker.addAndGet(HorizonFloor.PERIOD.toNanos());

      assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(a1, a2);
    }
  }

  @Test
  void aRowSetBackToPendingByHandBelowTheFloorIsFoundByTheRecheckWithinAMinute() {
    long x1 = rows.write("x1", "t");
    long x2 = rows.write("x2", "t");
    long floorAbove = deliverAndSetTheFirstBackByHand(x1, x2);
    assertThat(refreshed()).as("before the recheck").isEqualTo(floorAbove);

    ticker.addAndGet(Duration.ofMinutes(1).toNanos());
    assertThat(floor.current()).as("after it").isEqualTo(x1);
  }

  @Test
  void theRecheckReadsBelowTheFloorInChunksThatGrowWhileTheyAreQuick() {
    // A row set back by hand 5,000,000 seqs below the floor, as after a long history: the recheck
    // should reach it in a few chunks from the floor down, a pause apart, each reading twice the
    // seqs of the one before (this clock does not move while a chunk runs, so every chunk is
    // quick).
    long x1 = rows.write("x1", "t");
    setSeq(x1 + 5_000_000);
    try {
      long x2 = rows.write("x2", "t");
      long floorAbove = deliverAndSetTheFirstBackByHand(x1, x2);

      ticker.addAndGet(Duration.ofMinutes(1).toNanos());
      assertThat(floor.current()).as("after the first chunk").isEqualTo(floorAbove);
      int chunks = 1;
      while (floor.current() != x1 && chunks < 20) {
        ticker.addAndGet(FloorRecheck.PAUSE.toNanos());
        chunks++;
      }
      // 65,536 seqs below the floor, then 131,072, 262,144, ...: the seventh chunk ends past
      // 5,000,000 below it.
      assertThat(floor.current()).as("after %d chunks", chunks).isEqualTo(x1);
      assertThat(chunks).isBetween(3, 7);
    } finally {
      // The other tests of this class count on seqs the first chunk reads; the rows are deleted
      // before each test, so no seq is handed out twice.
      setSeq(x1);
    }
  }

  @Test
  void aSlowChunkOfTheRecheckMakesTheNextOneReadFewerSeqsInProportion() {
    List<List<Object>> ranges = new ArrayList<>();
    long[] clock = {Duration.ofMinutes(1).toNanos()};
    long[] took = {0};
    FloorRecheck recheck = recordedRecheck(ranges, () -> clock[0] + took[0]);
    long floorAt = 10_000_000;

    recheck.below(floorAt, clock[0]);
    clock[0] += FloorRecheck.PAUSE.toNanos();
    took[0] = 4 * FloorRecheck.CHUNK_TARGET.toNanos();
    recheck.below(floorAt, clock[0]);
    clock[0] += 100 * took[0];
    took[0] = 0;
    recheck.below(floorAt, clock[0]);

    assertThat(ranges)
        .as("quick, so twice the seqs next; four times too slow, so a quarter of them next")
        .containsExactly(
            List.of(9_934_464L, 9_999_999L),
            List.of(9_803_392L, 9_934_463L),
            List.of(9_770_624L, 9_803_391L));
  }

  @Test
  void eachCycleOfTheRecheckStartsAtTheFloorWithTheSpanItsFirstChunkWasSizedToBefore() {
    // Under a held horizon the entries kept lie just below the floor, and below them the seqs
    // vacuum cleaned: the chunks may grow there, but the next cycle must start at the floor again
    // with a span sized where the entries are, not with the one they grew to further down.
    List<List<Object>> ranges = new ArrayList<>();
    long[] clock = {Duration.ofMinutes(1).toNanos()};
    long[] took = {4 * FloorRecheck.CHUNK_TARGET.toNanos()};
    FloorRecheck recheck = recordedRecheck(ranges, () -> clock[0] + took[0]);
    long floorAt = 1_000_000;

    recheck.below(floorAt, clock[0]);
    took[0] = 0;
    while (ranges.size() < 7) {
      clock[0] += FloorRecheck.PAUSE.toNanos();
      recheck.below(floorAt, clock[0]);
    }
    clock[0] += Duration.ofSeconds(FloorRecheck.CYCLE_SECONDS).toNanos();
    recheck.below(floorAt, clock[0]);

    assertThat(ranges)
        .as("slow first chunk, a quarter next, then twice each until zero; then from the floor")
        .containsExactly(
            List.of(934_464L, 999_999L),
            List.of(918_080L, 934_463L),
            List.of(885_312L, 918_079L),
            List.of(819_776L, 885_311L),
            List.of(688_704L, 819_775L),
            List.of(426_560L, 688_703L),
            List.of(Long.MIN_VALUE, 426_559L),
            List.of(983_616L, 999_999L));
  }

  /**
   * A recheck on {@code nanoTime} that adds the seq range of each chunk it reads to {@code ranges}.
   */
  private FloorRecheck recordedRecheck(List<List<Object>> ranges, LongSupplier nanoTime) {
    DSLContext recorded =
        DSL.using(
            db.dsl()
                .configuration()
                .derive(
                    ExecuteListener.onExecuteStart(
                        ctx -> ranges.add(ctx.query().getBindValues().subList(0, 2)))));
    return new FloorRecheck(recorded, OutboxDialect.of(db.dialect()), nanoTime);
  }

  /**
   * Delivers {@code first} and {@code second}, lets the floor pass them, then sets {@code first}
   * back to pending as an operator would by hand; returns the floor.
   */
  private long deliverAndSetTheFirstBackByHand(long first, long second) {
    deliver(first);
    deliver(second);
    assertThat(refreshed()).isEqualTo(second + 1);
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .setNull(OUTBOX_MESSAGE.SENT_AT)
        .where(OUTBOX_MESSAGE.SEQ.eq(first))
        .execute();
    return second + 1;
  }

  /** Sets the seq the identity column handed out last. */
  private void setSeq(long seq) {
    // Plain SQL: jOOQ has no setval; the table's name, as this context renders it, is a bind value.
    Field<String> table = DSL.val(db.dsl().render(OUTBOX_MESSAGE));
    db.dsl()
        .select(
            DSL.field(
                "setval(cast(pg_get_serial_sequence({0}, 'seq') as regclass), {1})",
                Long.class, table, DSL.val(seq)))
        .fetch();
  }

  @Test
  void theFloorPassesARowBackingOffWhichStillHoldsItsAggregateBackUntilItIsDelivered() {
    long a1 = rows.write("a", "t");
    long b1 = rows.write("b", "t");
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(a1, b1);
    repository.retryLater("relay", a1, "boom", clock.instant().plus(Duration.ofMinutes(5)));
    repository.markSent("relay", List.of(b1), clock.instant());
    long a2 = rows.write("a", "t");
    long b2 = rows.write("b", "t");

    assertThat(refreshed()).as("past the row backing off").isEqualTo(a2);
    refreshRepositoryFloor();
    assertThat(claim("relay", 10))
        .as("while a1 backs off")
        .extracting(OutboxMessage::seq)
        .containsExactly(b2);
    repository.markSent("relay", List.of(b2), clock.instant());

    clock.advance(Duration.ofMinutes(5));
    assertThatOnlyHeadThenNext(a1, a2);
  }

  @Test
  void theFloorPassesAMessageWhoseHandlerRunsPastABeatWhichStillHoldsItsAggregateBack() {
    long a1 = rows.write("a", "t");
    long b1 = rows.write("b", "t");
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(a1, b1);
    repository.markSent("relay", List.of(b1), clock.instant());
    long a2 = rows.write("a", "t");
    long b2 = rows.write("b", "t");
    assertThat(refreshed()).as("a1 in flight holds the floor").isEqualTo(a1);

    // The heartbeat extends only claims at least a beat old: a1's handler runs long.
    assertThat(repository.extendLeases(List.of("relay"), List.of(a1), clock.instant().plus(LEASE)))
        .isOne();
    assertThat(refreshed()).as("past the row whose handler runs long").isEqualTo(a2);
    refreshRepositoryFloor();
    assertThat(claim("other", 10))
        .as("while a1's handler runs")
        .extracting(OutboxMessage::seq)
        .containsExactly(b2);
    repository.markSent("other", List.of(b2), clock.instant());
    repository.extendLeases(List.of("relay"), List.of(a1), clock.instant().plus(LEASE));
    assertThat(claim("other", 10)).as("still while it runs").isEmpty();

    repository.markSent("relay", List.of(a1), clock.instant());
    assertThat(claim("other", 10)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  @Test
  void aMessageParkedByTheHeartbeatAndGivenBackIsClaimedAgainBelowTheFloorBeforeTheRowBehindIt() {
    long a1 = rows.write("a", "t");
    assertThat(claim("stopping", 10)).extracting(OutboxMessage::seq).containsExactly(a1);
    long a2 = rows.write("a", "t");
    long b1 = rows.write("b", "t");
    repository.extendLeases(List.of("stopping"), List.of(a1), clock.instant().plus(LEASE));
    assertThat(refreshed()).isEqualTo(a2);
    refreshRepositoryFloor();
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(b1);
    repository.markSent("relay", List.of(b1), clock.instant());

    repository.release("stopping", List.of(a1)); // its relay closes: given back, still parked
    assertThatOnlyHeadThenNext(a1, a2);
  }

  @Test
  void theFloorPassesAMessageWrittenWithADelayWhichStillHoldsItsAggregateBack() {
    long a1 = rows.writeDelayed("a", Duration.ofMinutes(10));
    long a2 = rows.write("a", "t");
    long b1 = rows.write("b", "t");

    assertThat(refreshed()).as("past the delayed message").isEqualTo(a2);
    refreshRepositoryFloor();
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(b1);
    repository.markSent("relay", List.of(b1), clock.instant());

    clock.advance(Duration.ofMinutes(10));
    assertThatOnlyHeadThenNext(a1, a2);
  }

  /**
   * A claim takes parked {@code head}, below the floor, from its own index, without the row behind
   * it (the window, from the floor, takes that once the head is settled); the next claim {@code
   * next}.
   */
  private void assertThatOnlyHeadThenNext(long head, long next) {
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(head);
    assertThat(claim("relay", 10)).as("while the head is in flight").isEmpty();
    repository.markSent("relay", List.of(head), clock.instant());
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(next);
  }

  @Test
  void aParkedRowBelowTheFloorIsClaimedFirstWhenTheWindowFillsEveryBatch() {
    long a1 = rows.write("a", "t");
    assertThat(claim("relay", 1)).extracting(OutboxMessage::seq).containsExactly(a1);
    repository.retryLater("relay", a1, "boom", clock.instant().plus(Duration.ofMinutes(1)));
    List<Long> others = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      others.add(rows.write("other-" + i, "t"));
    }
    assertThat(refreshed()).isEqualTo(others.get(0));
    refreshRepositoryFloor();
    clock.advance(Duration.ofMinutes(1));

    assertThat(claim("relay", 5))
        .extracting(OutboxMessage::seq)
        .containsExactly(a1, others.get(0), others.get(1), others.get(2), others.get(3));
  }

  /**
   * A dead letter requeued at or after the floor but below where the window starts (the first
   * pending row the last window found) is neither below the floor nor in the window: the claim
   * reads it from the parked index, finds it is its aggregate's head, and takes it before the rest
   * of the claim, while its aggregate's later row waits. The statements show the cost: the probe of
   * such rows runs only in the claim that found one, and a claim with nothing parked reads the
   * parked index with one statement (the probe, run on every claim, cost 7 % of the claim's time in
   * the database during a drain, all of it planning).
   */
  @Test
  void aDeadLetterRequeuedBetweenTheFloorAndTheWindowsStartIsTakenAsItsAggregatesHead() {
    List<String> statements = new CopyOnWriteArrayList<>();
    repository =
        new JooqOutboxRepository(
            DSL.using(
                db.dsl()
                    .configuration()
                    .derive(ExecuteListener.onExecuteStart(ctx -> statements.add(ctx.sql())))),
            new ObjectMapper(),
            ticker::get);
    long a1 = rows.write("a", "t");
    long b1 = rows.write("b", "t");
    refreshRepositoryFloor();
    OutboxMessage first = claim("relay", 1).get(0);
    assertThat(first.seq()).isEqualTo(a1);
    repository.deadLetter("relay", a1, "poison", clock.instant());
    assertThat(claim("relay", 10)).extracting(OutboxMessage::seq).containsExactly(b1);
    repository.markSent("relay", List.of(b1), clock.instant());
    long a2 = rows.write("a", "t");
    long c1 = rows.write("c", "t");

    statements.clear();
    assertThat(claim("idle", 10))
        .as("nothing parked")
        .extracting(OutboxMessage::seq)
        .containsExactly(a2, c1);
    assertThat(repository.release("idle", List.of(a2, c1))).isEqualTo(2);
    assertThat(statements).filteredOn(PostgresHorizonFloorTest::readsParked).hasSize(1);
    assertThat(statements).noneMatch(PostgresHorizonFloorTest::probesParked);

    assertThat(repository.requeue(first.id(), clock.instant())).isTrue();
    statements.clear();
    assertThat(claim("relay", 10))
        .as("a1 between the floor (a1) and the window's start (b1), before a2")
        .extracting(OutboxMessage::seq)
        .containsExactly(a1, c1);
    assertThat(statements).filteredOn(PostgresHorizonFloorTest::probesParked).hasSize(1);
  }

  /** The claim's read of the parked rows below its window's start. */
  private static boolean readsParked(String sql) {
    return sql.startsWith("select min(\"r\".\"seq\") from");
  }

  /** The claim's probe of whether a parked row from the floor on is its aggregate's head. */
  private static boolean probesParked(String sql) {
    return sql.contains("first_parked");
  }

  /** Lets the repository's own floor refresh three times, claiming nothing. */
  private void refreshRepositoryFloor() {
    for (int i = 0; i < 3; i++) {
      ticker.addAndGet(HorizonFloor.PERIOD.toNanos());
      assertThat(repository.claim(Set.of("none"), 10, 5, LEASE, "idle", clock.instant())).isEmpty();
    }
  }

  private List<OutboxMessage> claim(String token, int limit) {
    return repository.claim(TOPICS, limit, 5, LEASE, token, clock.instant());
  }

  /** Claims what is ready, which must include {@code seq}, and marks {@code seq} sent. */
  private void deliver(long seq) {
    assertThat(claim("deliver", 1)).extracting(OutboxMessage::seq).containsExactly(seq);
    repository.markSent("deliver", List.of(seq), clock.instant());
  }

  /** The floor after three refresh periods (an observation is settled by a later one). */
  private long refreshed() {
    long current = 0;
    for (int i = 0; i < 3; i++) {
      ticker.addAndGet(HorizonFloor.PERIOD.toNanos());
      current = floor.current();
    }
    return current;
  }
}
