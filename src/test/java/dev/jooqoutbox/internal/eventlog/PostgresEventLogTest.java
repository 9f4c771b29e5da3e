package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.ClaimRequest;
import dev.jooqoutbox.internal.repository.DatabaseRelayStore;
import dev.jooqoutbox.internal.repository.HeldClaims;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's event log (docs/decisions/0001-postgresql-event-log.md): what only it does. Its
 * delivery path writes no message row, a held xmin horizon changes no read's cost, messages of an
 * aggregate come in commit order, and a crashed relay's messages count an attempt when another
 * takes its shards. The relay's contracts run on it as on the other databases.
 */
class PostgresEventLogTest extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);

  PostgresEventLogTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  /**
   * A drain in which no handler fails updates or deletes at most 0.05 row versions a message in the
   * whole outbox schema (pg_stat_user_tables): the messages themselves none, only the shards'
   * positions and leases, a few times a second. The relay runs on a pool of its own, closed before
   * the counts are read: a backend flushes its statistics when it ends.
   */
  @Test
  void aDeliveredMessageUpdatesNoRowAndTheDrainAtMostAFewShardRows() {
    int messages = 20_000;
    BulkMessages.insert(
        db.dsl(),
        messages,
        i -> new BulkMessages.Row("m-" + i, "agg-" + (i % 500), "orders", "{\"n\":1}", START));
    long before = changedVersions();
    List<String> delivered = new CopyOnWriteArrayList<>();
    try (HikariDataSource pool = pool()) {
      DSLContext relayDsl = DSL.using(pool, SQLDialect.POSTGRES);
      try (OutboxRelay relay =
          OutboxRelay.builder(relayDsl)
              .listen(false)
              .pollInterval(Duration.ofMillis(20))
              .handler("orders", m -> delivered.add(m.id()))
              .build()) {
        relay.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (delivered.size() < messages && System.nanoTime() < deadline) {
          sleep(50);
        }
      }
    }
    assertThat(delivered).hasSize(messages).doesNotHaveDuplicates();
    long changed = awaitStableChangedVersions() - before;
    System.out.printf(
        "event log drain: %d messages, %d row versions updated or deleted (%.4f a message)%n",
        messages, changed, (double) changed / messages);
    assertThat((double) changed / messages).isLessThanOrEqualTo(0.05);
    assertThat(tableChanges("outbox_event_p%")).as("messages updated or deleted").isZero();
  }

  /**
   * The read of the next messages costs the same index pages whether or not a transaction held the
   * xmin horizon while thousands of messages were delivered: the log is never updated, so no read
   * meets a row version left for the horizon, and each read starts at its shard's position.
   */
  @Test
  void aHeldHorizonChangesNoReadsCost() throws Exception {
    long quiet = readCostAfterDrainingRounds(false);
    long held = readCostAfterDrainingRounds(true);
    System.out.printf(
        "next read after 5 rounds: %d buffers; with a held horizon: %d%n", quiet, held);
    assertThat(held).isLessThanOrEqualTo(quiet + 16);
  }

  /**
   * Two transactions write one aggregate; the one that drew the later seq commits first and is read
   * first: an aggregate's messages are delivered in the order they were committed, with no wait for
   * a transaction still running.
   */
  @Test
  void anAggregatesMessagesAreDeliveredInCommitOrder() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        OutboxRelay.builder(db.dsl())
            .clock(clock)
            .listen(false)
            .handler("orders", m -> seen.add(m.id()))
            .build();
    try (Connection slow = db.dataSource().getConnection();
        relay) {
      slow.setAutoCommit(false);
      String first =
          outbox.write(DSL.using(slow, SQLDialect.POSTGRES), "order-1", "orders", Map.of("n", 1));
      String second =
          db.dsl()
              .transactionResult(tx -> outbox.write(tx.dsl(), "order-1", "orders", Map.of("n", 2)));
      assertThat(relay.drainOnce(10)).isOne();
      slow.commit();
      assertThat(relay.drainOnce(10)).isOne();
      assertThat(seen).containsExactly(second, first);
    }
  }

  /**
   * A relay that crashed with messages handed out: whoever takes its shards after the lease copies
   * them to outbox_message with that attempt counted, so they are delivered again as attempt 2, and
   * a message that keeps crashing relays ends as a dead letter without running again.
   */
  @Test
  void aCrashedRelaysMessagesCountAnAttemptAndEndAsDeadLetters() {
    String id = db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), "a", "orders", Map.of()));
    List<OutboxMessage> handedByTheDead = crashedClaim(START);
    assertThat(handedByTheDead).extracting(OutboxMessage::id).containsExactly(id);
    assertThat(handedByTheDead.get(0).attempt()).isOne();

    List<Integer> attempts = new CopyOnWriteArrayList<>();
    clock.advance(LEASE.minusSeconds(1));
    try (OutboxRelay next =
        OutboxRelay.builder(db.dsl())
            .clock(clock)
            .listen(false)
            .maxAttempts(3)
            .handler(
                "orders",
                m -> {
                  attempts.add(m.attempt());
                })
            .build()) {
      assertThat(next.drainOnce(10)).as("while the dead relay's lease holds").isZero();
      clock.advance(Duration.ofSeconds(1));
      assertThat(next.drainOnce(10)).isOne();
    }
    assertThat(attempts).containsExactly(2);
    assertThat(MessageRow.of(db.dsl(), clock, id).isSent()).isTrue();
  }

  /**
   * Two relays crash in turn holding the same message: the second got it as its copy, attempt 2;
   * the third counts it as attempt 3 and, with three attempts allowed, delivers it once, from the
   * copy and not again from the log.
   */
  @Test
  void aMessageThatCrashedTwoRelaysIsDeliveredOnceAsItsThirdAttempt() {
    String id = db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), "a", "orders", Map.of()));
    assertThat(crashedClaim(START)).extracting(OutboxMessage::attempt).containsExactly(1);
    clock.advance(LEASE);
    assertThat(crashedClaim(clock.instant()))
        .as("the second relay, after the first one's lease")
        .extracting(OutboxMessage::id, OutboxMessage::attempt)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(id, 2));
    clock.advance(LEASE);

    List<String> deliveries = new CopyOnWriteArrayList<>();
    try (OutboxRelay third =
        OutboxRelay.builder(db.dsl())
            .clock(clock)
            .listen(false)
            .maxAttempts(3)
            .handler("orders", m -> deliveries.add(m.id() + "#" + m.attempt()))
            .build()) {
      while (third.drainOnce(10) > 0) {
        // until nothing is left
      }
    }
    assertThat(deliveries).containsExactly(id + "#3");
    assertThat(MessageRow.of(db.dsl(), clock, id).isSent()).isTrue();
  }

  /**
   * A relay that takes a shard after it has written its mark for the others still writes that mark
   * to the new shard before handing anything out of it: crashed then, its message there counts an
   * attempt too.
   */
  @Test
  void aShardTakenAfterTheMarkGetsTheMarkBeforeItsMessagesGoOut() {
    String early = aggregateOf(0);
    String late = aggregateOf(1);
    // Another relay holds the late aggregate's shard for two seconds, and wrote no mark.
    db.dsl()
        .update(OUTBOX_SHARD)
        .set(OUTBOX_SHARD.RELAY_ID, "another")
        .set(OUTBOX_SHARD.LEASE_UNTIL, START.plusSeconds(2))
        .where(OUTBOX_SHARD.SHARD.eq(EventShards.of(late)))
        .execute();
    db.dsl().transaction(tx -> outbox.write(tx.dsl(), early, "orders", Map.of()));
    EventStore dead = store();
    assertThat(dead.claim(request(START))).hasSize(1);

    String id = db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), late, "orders", Map.of()));
    // The other relay's lease ran out; past a sixth of the lease the dead relay looks for shards
    // again at its next claim, and takes it.
    clock.advance(LEASE.dividedBy(6).plusSeconds(1));
    assertThat(dead.claim(request(clock.instant())))
        .extracting(OutboxMessage::id)
        .containsExactly(id);

    clock.advance(LEASE);
    List<Integer> attempts = attemptsOfADrain();
    assertThat(attempts)
        .as("the dead relay's two messages, each a second attempt")
        .containsExactly(2, 2);
  }

  /**
   * A relay takes the shards of one that crashed and gives them back before it read anything (it
   * closed, or another relay came): the crashed relay's mark goes with them, so the relay after
   * still counts the attempt of the message the crashed one had out.
   */
  @Test
  void aCrashedRelaysMarkSurvivesAGiveBackBeforeItsMessagesAreRead() {
    String id = db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), "a", "orders", Map.of()));
    assertThat(crashedClaim(START)).extracting(OutboxMessage::id).containsExactly(id);
    clock.advance(LEASE.plusSeconds(1));

    EventStore passing = store();
    passing.start(); // takes every shard on its own thread, and reads none without a claim
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                db.dsl()
                        .fetchCount(
                            OUTBOX_SHARD,
                            OUTBOX_SHARD
                                .RELAY_ID
                                .isNull()
                                .or(OUTBOX_SHARD.LEASE_UNTIL.le(clock.instant())))
                    == 0);
    passing.close();

    List<Integer> attempts = attemptsOfADrain();
    assertThat(attempts).as("the crashed relay's message, a second attempt").containsExactly(2);
  }

  private static String aggregateOf(int shard) {
    for (int i = 0; ; i++) {
      if (EventShards.of("agg-" + i) == shard) {
        return "agg-" + i;
      }
    }
  }

  private static ClaimRequest request(Instant now) {
    return new ClaimRequest(Set.of("orders"), 10, 10, LEASE, "dead", now, HeldClaims.NONE);
  }

  // ---------------------------------------------------------------- helpers

  /** The attempt of each message a new relay delivers, draining on this thread to the end. */
  private List<Integer> attemptsOfADrain() {
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    try (OutboxRelay next =
        OutboxRelay.builder(db.dsl())
            .clock(clock)
            .listen(false)
            .handler("orders", m -> attempts.add(m.attempt()))
            .build()) {
      while (next.drainOnce(10) > 0) {
        // until nothing is left
      }
    }
    return attempts;
  }

  /** A store of a relay of its own, as the relay builds it. */
  private EventStore store() {
    return new EventStore(
        new DatabaseRelayStore(new JooqOutboxRepository(db.dsl())),
        db.dsl(),
        new ObjectMapper(),
        LEASE,
        10,
        clock);
  }

  /** A store that claims as a relay does, then is abandoned: a relay killed mid-delivery. */
  private List<OutboxMessage> crashedClaim(Instant now) {
    EventStore dead = store();
    return dead.claim(
        new ClaimRequest(Set.of("orders"), 10, 10, LEASE, "dead", now, HeldClaims.NONE));
  }

  /**
   * Writes and drains five rounds of 2,000 messages, a transaction holding the xmin horizon from
   * the start if {@code hold}, then reads the buffers the next read of every shard touches.
   */
  private long readCostAfterDrainingRounds(boolean hold) throws Exception {
    db.truncate();
    try (Connection holder = db.dataSource().getConnection()) {
      if (hold) {
        holder.setAutoCommit(false);
        holder.createStatement().execute("set transaction isolation level repeatable read");
        holder.createStatement().executeQuery("select 1").close(); // takes the snapshot
      }
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dsl())
              .clock(clock)
              .listen(false)
              .handler("orders", m -> {})
              .build()) {
        for (int round = 0; round < 5; round++) {
          int offset = round * 2_000;
          BulkMessages.insert(
              db.dsl(),
              2_000,
              i ->
                  new BulkMessages.Row(
                      "r" + offset + "-" + i, "agg-" + (i % 200), "orders", "{}", START));
          while (relay.drainOnce(10_000) > 0) {
            // until the log is read to its end
          }
        }
      }
      long buffers = nextReadBuffers();
      if (hold) {
        holder.rollback();
      }
      return buffers;
    }
  }

  /** Shared buffers the read of every shard from its written position touches (EXPLAIN). */
  private long nextReadBuffers() {
    java.util.Map<Short, Cursor> cursors = new java.util.TreeMap<>();
    for (var r : db.dsl().selectFrom(OUTBOX_SHARD).fetch()) {
      cursors.put(r.getShard(), ShardLeases.cursorOf(r));
    }
    var query =
        new EventReader(db.dsl(), new JooqOutboxRepository(db.dsl()).rows()).chunks(cursors, 100);
    String plan =
        db.dsl()
            .fetchValue("explain (analyze, buffers, format json) " + db.dsl().renderInlined(query))
            .toString();
    long buffers = 0;
    var m = java.util.regex.Pattern.compile("\"Shared (Hit|Read) Blocks\": (\\d+)").matcher(plan);
    // The top node's counts include its children's: the first of each is the statement's.
    boolean hit = false;
    boolean read = false;
    while (m.find()) {
      if (m.group(1).equals("Hit") && !hit) {
        buffers += Long.parseLong(m.group(2));
        hit = true;
      } else if (m.group(1).equals("Read") && !read) {
        buffers += Long.parseLong(m.group(2));
        read = true;
      }
    }
    return buffers;
  }

  private HikariDataSource pool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url());
    config.setMaximumPoolSize(8);
    return new HikariDataSource(config);
  }

  /** Row versions updated or deleted in every table of this test's schema, as counted so far. */
  private long changedVersions() {
    db.dsl().execute("select pg_stat_clear_snapshot()");
    Long n =
        db.dsl()
            .fetchOne(
                "select coalesce(sum(n_tup_upd + n_tup_del), 0) from pg_stat_user_tables"
                    + " where schemaname = current_schema()")
            .get(0, Long.class);
    return n;
  }

  private long tableChanges(String table) {
    db.dsl().execute("select pg_stat_clear_snapshot()");
    return db.dsl()
        .fetchOne(
            "select coalesce(sum(n_tup_upd + n_tup_del), 0) from pg_stat_user_tables"
                + " where schemaname = current_schema() and relname like ?",
            table)
        .get(0, Long.class);
  }

  /** The count once the relay's backends, which flush their statistics as they end, have. */
  private long awaitStableChangedVersions() {
    long last = -1;
    for (int i = 0; i < 50; i++) {
      long now = changedVersions();
      if (now == last) {
        return now;
      }
      last = now;
      sleep(200);
    }
    return last;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
