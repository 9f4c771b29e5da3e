package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
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
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.ExecuteListener;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * The claim on PostgreSQL while another session holds the xmin horizon (a {@code REPEATABLE READ}
 * transaction left open, as a long report, {@code pg_dump} or an idle session in a transaction
 * does): no row version can be removed then, and no index entry of one marked dead, so every
 * statement that walks an index range holding the versions of delivered messages reads more and
 * more of them. The claim's statements must start past what is known delivered: the index entries
 * it reads per message delivered stay flat while the history grows. Counts, not times: {@code
 * idx_tup_read} of the outbox's indexes (entries returned by index scans, those of dead versions
 * included), as PostgreSQL's statistics report them.
 */
class PostgresHeldHorizonClaimTest extends DatabaseFixture {

  private static final Set<String> TOPICS = Set.of("t");
  private static final int ROUNDS = 6;
  private static final int PER_ROUND = 4_000;
  private static final int AGGREGATES = 200;

  /** How long a claim takes by {@link #nanos}: about what it takes here, warm. */
  private static final long CLAIM_NANOS = Duration.ofMillis(10).toNanos();

  /**
   * The clock of {@link #relay}'s floor: each claim moves it {@link #CLAIM_NANOS}, so the floor
   * moves at the same claims in every run, however fast this machine drains. On the system clock a
   * faster drain left it further behind, and the probes read more of what was delivered since (a
   * cold first round half of what the warm rounds read).
   */
  private final AtomicLong nanos = new AtomicLong();

  private JooqOutboxRepository relay;

  PostgresHeldHorizonClaimTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void theIndexEntriesAClaimReadsPerMessageDoNotGrowWithTheHistory() throws Exception {
    assertFlat(
        round -> {
          DeepOutbox.insert(db.dsl(), round * PER_ROUND, PER_ROUND, AGGREGATES, false);
          int delivered = drain();
          idlePolls();
          return delivered;
        });
  }

  /**
   * A relay that keeps up: a few messages are written, claimed and sent, again and again, so most
   * claims end finding nothing new (the statistics those of the empty table, as after a fresh
   * migration), while the rows an earlier test deleted may still be in the table (the fixture
   * empties it with DELETE). The lease must not walk the history: planned as a semi join, it walked
   * the whole primary key and locked its candidates again for each row (2,200 entries per message
   * in the first round, 23,000 in the sixth).
   */
  @Test
  void aRelayThatKeepsUpReadsNoMoreEntriesPerMessageAsTheHistoryGrows() throws Exception {
    db.dsl().execute("analyze {0}", OUTBOX_MESSAGE);
    int burst = 50;
    assertFlat(
        round -> {
          int delivered = 0;
          for (int b = 0; b < PER_ROUND / burst; b++) {
            int first = round * PER_ROUND + b * burst;
            BulkMessages.insert(
                db.dsl(),
                burst,
                i ->
                    new BulkMessages.Row(
                        "m-" + (first + i),
                        "aggregate-" + ((first + i) % AGGREGATES),
                        "t",
                        "{}",
                        DeepOutbox.NOW.minus(Duration.ofHours(2))));
            delivered += drain();
          }
          return delivered;
        });
  }

  /**
   * A claim that finds nothing, from a window that read every pending row, runs no head scan: below
   * the floor no row becomes pending by a commit, so the scan could find nothing the window did not
   * see. Such a claim ends every drain of a relay that keeps up; when it ran the scan, the claim
   * read twice the index entries per message in {@link
   * #aRelayThatKeepsUpReadsNoMoreEntriesPerMessageAsTheHistoryGrows}, and in the benchmark, under a
   * held horizon and the statistics of an empty table, PostgreSQL read the primary key from the
   * floor for it, over every version of every message delivered since (500 entries per message
   * after 40 seconds at 2,000 msg/s). Seen in the statements the claims run: the head scan is the
   * claim's only recursive query.
   */
  @Test
  void aClaimThatFindsNothingRunsNoHeadScan() {
    List<String> statements = new CopyOnWriteArrayList<>();
    var recorded =
        DSL.using(
            db.dsl()
                .configuration()
                .derive(ExecuteListener.onExecuteStart(ctx -> statements.add(ctx.sql()))));
    relay = new JooqOutboxRepository(recorded, new ObjectMapper(), nanos::get);
    DeepOutbox.insert(db.dsl(), 0, 50, AGGREGATES, false);
    assertThat(drain()).isEqualTo(50);
    idlePolls();
    statements.clear();
    for (int i = 0; i < 10; i++) {
      nanos.addAndGet(HorizonFloor.PERIOD.toNanos());
      assertThat(drain()).isZero();
    }
    assertThat(statements).isNotEmpty().noneMatch(sql -> sql.contains("with recursive"));
  }

  /**
   * The relay's backlog gauges (every {@code gaugeInterval}, 5 s by default) read from the claims'
   * floor: read from the pending index's first entry, they walked the whole history each time under
   * a held horizon. A message written with a delay, parked below the floor, is still counted.
   */
  @Test
  void theBacklogGaugesReadNoMoreEntriesAsTheHistoryGrows() throws Exception {
    var dsl = db.dsl();
    dsl.execute("alter table {0} set (autovacuum_enabled = false)", OUTBOX_MESSAGE);
    relay = new JooqOutboxRepository(dsl, new ObjectMapper(), nanos::get);
    Instant written = DeepOutbox.NOW.minus(Duration.ofHours(3));
    Outbox delayed = Outbox.builder(dsl).clock(Clock.fixed(written, ZoneOffset.UTC)).build();
    dsl.transaction(
        tx -> delayed.message("late", "t", Map.of()).delay(Duration.ofDays(1)).write(tx.dsl()));
    List<Long> reads = new ArrayList<>();
    try (Connection holder = db.dataSource().getConnection()) {
      HeldHorizonProbe.holdHorizon(dsl, holder);
      for (int round = 0; round < 4; round++) {
        DeepOutbox.insert(dsl, round * PER_ROUND, PER_ROUND, AGGREGATES, false);
        assertThat(drain()).isEqualTo(PER_ROUND);
        idlePolls();
        Map<String, Long> before = HeldHorizonProbe.indexReads(dsl);
        long pending = relay.pendingCount();
        Duration oldest = relay.oldestPendingAge(DeepOutbox.NOW);
        reads.add(HeldHorizonProbe.readBetween(before, HeldHorizonProbe.indexReads(dsl)));
        assertThat(pending).as("the delayed message").isOne();
        assertThat(oldest).isEqualTo(Duration.ofHours(3));
      }
      holder.rollback();
    }
    assertThat(reads.get(3))
        .as("index entries the gauges read after each round: %s", reads)
        .isLessThan(2 * Math.max(reads.get(0), 100));
  }

  /** A round of the history: writes and delivers {@link #PER_ROUND} messages. */
  @FunctionalInterface
  private interface Round {
    int deliver(int round) throws Exception;
  }

  private void assertFlat(Round work) throws Exception {
    var dsl = db.dsl();
    dsl.execute("alter table {0} set (autovacuum_enabled = false)", OUTBOX_MESSAGE);
    List<Double> perMessage = new ArrayList<>();
    relay = new JooqOutboxRepository(db.dsl(), new ObjectMapper(), nanos::get);
    try (Connection holder = db.dataSource().getConnection()) {
      HeldHorizonProbe.holdHorizon(dsl, holder);
      for (int round = 0; round < ROUNDS; round++) {
        Map<String, Long> before = HeldHorizonProbe.indexReads(dsl);
        int delivered = work.deliver(round);
        Map<String, Long> after = HeldHorizonProbe.indexReads(dsl);
        assertThat(delivered).isEqualTo(PER_ROUND);
        long total = 0;
        StringBuilder byIndex = new StringBuilder();
        for (var e : after.entrySet()) {
          long read = e.getValue() - before.getOrDefault(e.getKey(), 0L);
          total += read;
          byIndex.append(String.format(" %s=%.1f", e.getKey(), (double) read / delivered));
        }
        perMessage.add((double) total / delivered);
        System.out.printf(
            "held horizon, round %d (history %,d): %.1f index entries read per message:%s%n",
            round, (round + 1) * PER_ROUND, (double) total / delivered, byIndex);
      }
      holder.rollback();
    }
    // The first round's reads are the start; the last round runs over five times the history.
    assertThat(perMessage.get(ROUNDS - 1))
        .as("entries read per message by round: %s", perMessage)
        .isLessThan(2 * Math.max(perMessage.get(0), 10.0));
  }

  /** Claims and marks sent until a claim comes up empty; how many were delivered. */
  private int drain() {
    int delivered = 0;
    while (true) {
      nanos.addAndGet(CLAIM_NANOS);
      List<OutboxMessage> batch =
          relay.claim(TOPICS, 100, 10, Duration.ofSeconds(30), "r", DeepOutbox.NOW);
      if (batch.isEmpty()) {
        return delivered;
      }
      delivered +=
          relay.markSent("r", batch.stream().map(OutboxMessage::seq).toList(), DeepOutbox.NOW);
    }
  }

  /**
   * What a relay does while it has nothing to send: it claims again every poll interval (500 ms by
   * default), and these claims move the floor, which waits two refreshes for the transactions that
   * may still store a row below it. Without them the floor would stand where the last claims of the
   * round before left it, and the next round read what that round delivered too.
   */
  private void idlePolls() {
    for (int i = 0; i < 3; i++) {
      nanos.addAndGet(HorizonFloor.PERIOD.toNanos());
      assertThat(drain()).isZero();
    }
  }
}
