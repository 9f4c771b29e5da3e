package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.DuplicateMessageException;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retention of PostgreSQL's event log: a partition every shard has read past, whose messages are
 * older than the retention, is emptied whole (its space back to the file system, its messages' keys
 * gone, so their ids are forgotten as the purge always forgot them); one holding a message no shard
 * has settled is kept; a report reading an old partition delays its truncation and never a write or
 * a claim. Partitions of a thousand transaction ids here, so that a test fills one.
 */
class PostgresEventRetentionTest extends DatabaseFixture {

  private static final long WIDTH = 1000;
  private EventPartitions partitions;

  PostgresEventRetentionTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @BeforeEach
  void smallPartitions() {
    // The migration's first partition reaches a million transaction ids ahead; empty at the start
    // of a test, it is replaced by partitions of WIDTH from the current transaction id on.
    partitions = new EventPartitions(db.dsl(), WIDTH);
    for (EventPartitions.Range r : partitions.ranges()) {
      db.dsl().dropTable(partitions.table(r)).execute();
    }
    partitions.ensureAhead(txid());
  }

  @Test
  void aSettledOldPartitionIsEmptiedWholeAndItsIdsForgotten() {
    String id = write("a", Map.of("n", 1));
    assertThat(deliverAll()).containsExactly(id);
    assertThatThrownBy(() -> writeWithId(id, Map.of("n", 2)))
        .as("within the retention, the id is a key")
        .isInstanceOf(DuplicateMessageException.class);
    EventPartitions.Range first = partitions.ranges().get(0);
    assertThat(bytes(first)).isPositive();

    pastThePartition(true);
    clock.advance(Duration.ofHours(2));
    assertThat(purge(Duration.ofHours(1))).as("messages purged").isOne();

    assertThat(bytes(first)).as("space back to the file system").isZero();
    assertThat(db.dsl().fetchCount(OUTBOX_EVENT_KEY)).isZero();
    assertThat(StoredMessages.of(db.dsl(), clock).count()).isZero();
    assertThat(writeWithId(id, Map.of("n", 2))).as("a purged id is forgotten").isEqualTo(id);
  }

  @Test
  void aPartitionWithAMessageNoShardSettledIsKept() {
    write("a", Map.of("n", 1)); // never delivered: no relay read its shard
    pastThePartition(false);
    clock.advance(Duration.ofHours(2));
    assertThat(purge(Duration.ofHours(1))).isZero();
    assertThat(StoredMessages.of(db.dsl(), clock).notSent()).isOne();
  }

  @Test
  void aPartitionYoungerThanTheRetentionIsKept() {
    write("a", Map.of("n", 1));
    deliverAll();
    pastThePartition(true);
    assertThat(purge(Duration.ofHours(1))).isZero();
    assertThat(bytes(partitions.ranges().get(0))).isPositive();
  }

  @Test
  void aReportReadingAnOldPartitionDelaysItsTruncationButNoWriteOrClaim() throws Exception {
    String id = write("a", Map.of("n", 1));
    deliverAll();
    pastThePartition(true);
    clock.advance(Duration.ofHours(2));
    EventPartitions.Range first = partitions.ranges().get(0);
    try (Connection report = db.dataSource().getConnection()) {
      report.setAutoCommit(false);
      DSL.using(report, SQLDialect.POSTGRES).selectCount().from(partitions.table(first)).fetch();
      assertThatThrownBy(() -> purge(Duration.ofHours(1)))
          .as("the truncation waits at most its lock timeout, then gives up")
          .isInstanceOf(DataAccessException.class);
      // Writers and relays go on meanwhile.
      String during = write("b", Map.of("n", 2));
      assertThat(deliverAll()).containsExactly(during);
      report.rollback();
    }
    assertThat(bytes(first)).isPositive();
    assertThat(purge(Duration.ofHours(1))).as("the next purge, the report gone").isOne();
    assertThat(bytes(first)).isZero();
    assertThat(StoredMessages.of(db.dsl(), clock).keys())
        .extracting(k -> k.id())
        .doesNotContain(id);
  }

  // ---------------------------------------------------------------- helpers

  private String write(String aggregate, Object payload) {
    return db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), aggregate, "orders", payload));
  }

  private String writeWithId(String id, Object payload) {
    return db.dsl()
        .transactionResult(tx -> outbox.message("a", "orders", payload).id(id).write(tx.dsl()));
  }

  private List<String> deliverAll() {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(db.dsl())
            .clock(clock)
            .listen(false)
            .handler("orders", m -> seen.add(m.id()))
            .build()) {
      while (relay.drainOnce(100) > 0) {
        // to the end of the log; every shard's position is written when drainOnce returns
      }
    }
    return seen;
  }

  /**
   * Uses up transaction ids past the first partition, then, if {@code read}, lets a relay read
   * again, so that every shard's position is past it.
   */
  private void pastThePartition(boolean read) {
    long end = partitions.ranges().get(0).to();
    while (txid() < end) {
      db.dsl().fetchValue("select txid_current()"); // each in its own transaction: a new id
    }
    partitions.ensureAhead(txid());
    if (read) {
      deliverAll();
    }
  }

  private long purge(Duration retention) {
    EventRetention run =
        new EventRetention(db.dsl(), partitions, clock.instant().minus(retention), 1000);
    while (run.next()) {
      // a batch of keys or a truncation a call
    }
    return run.deleted().outboxDeleted();
  }

  private long bytes(EventPartitions.Range r) {
    return ((Number)
            db.dsl()
                .fetchValue(
                    "select pg_relation_size(cast(? as regclass))",
                    db.dsl().render(partitions.table(r))))
        .longValue();
  }

  private long txid() {
    return ((Number) db.dsl().fetchValue("select txid_current()")).longValue();
  }
}
