package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The purge on PostgreSQL while another session holds the xmin horizon: the index entries of the
 * rows a batch deleted stay in place, so a batch that read from the index's first entry read
 * everything the batches before it had deleted, and a purge cost the square of what it deleted.
 * Each batch must read on from where the one before ended, and only as far as its own rows go.
 * Counts, not times ({@link HeldHorizonProbe}).
 */
class PostgresHeldHorizonPurgeTest extends DatabaseFixture {

  private static final int ROWS = 4_000;
  private static final int BATCH = 100;
  private static final int QUARTER = ROWS / BATCH / 4;

  /** Rows sent in the same millisecond: a relay marks a batch sent at one instant. */
  private static final int SENT_TOGETHER = 10;

  PostgresHeldHorizonPurgeTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Test
  void eachBatchOfAPurgeReadsTheIndexEntriesOfItsOwnRowsOnly() throws Exception {
    var dsl = db.dsl();
    dsl.execute("alter table {0} set (autovacuum_enabled = false)", OUTBOX_MESSAGE);
    DeepOutbox.insert(dsl, 0, ROWS, 200, false);
    long first = dsl.select(OUTBOX_MESSAGE.SEQ.min()).from(OUTBOX_MESSAGE).fetchSingle().value1();
    Instant sentAt = DeepOutbox.NOW.minus(Duration.ofHours(1));
    for (int i = 0; i < ROWS / SENT_TOGETHER; i++) {
      long from = first + (long) i * SENT_TOGETHER;
      dsl.update(OUTBOX_MESSAGE)
          .set(OUTBOX_MESSAGE.SENT_AT, sentAt.plusMillis(i))
          .where(OUTBOX_MESSAGE.SEQ.between(from, from + SENT_TOGETHER - 1))
          .execute();
    }
    var repository = new JooqOutboxRepository(dsl, new ObjectMapper());

    try (Connection holder = db.dataSource().getConnection()) {
      HeldHorizonProbe.holdHorizon(dsl, holder);
      PurgeRun purge = repository.startPurge(DeepOutbox.NOW, BATCH);
      Map<String, Long> start = HeldHorizonProbe.indexReads(dsl);
      batches(purge, QUARTER);
      Map<String, Long> firstQuarter = HeldHorizonProbe.indexReads(dsl);
      batches(purge, 2 * QUARTER);
      Map<String, Long> lastQuarterStart = HeldHorizonProbe.indexReads(dsl);
      batches(purge, QUARTER);
      Map<String, Long> end = HeldHorizonProbe.indexReads(dsl);
      while (purge.next()) {
        // the empty batch that ends it
      }
      holder.rollback();

      assertThat(purge.deleted()).isEqualTo(new PurgeResult(ROWS, 0));
      long readFirst = HeldHorizonProbe.readBetween(start, firstQuarter);
      long readLast = HeldHorizonProbe.readBetween(lastQuarterStart, end);
      System.out.printf(
          "held horizon, purge of %,d in batches of %d: %,d index entries read by the first"
              + " quarter of its batches, %,d by the last%n  %s%n  %s%n  %s%n  %s%n",
          ROWS, BATCH, readFirst, readLast, start, firstQuarter, lastQuarterStart, end);
      // A batch reads the entries of its rows twice (the read of its last age, the delete): about
      // two a row, at the end of the purge as at its start.
      long rowsAQuarter = (long) QUARTER * BATCH;
      assertThat(readFirst)
          .as("entries read by the first quarter of the batches, %,d rows", rowsAQuarter)
          .isLessThan(4 * rowsAQuarter);
      assertThat(readLast)
          .as("entries read by the last quarter of the batches, %,d rows", rowsAQuarter)
          .isLessThan(4 * rowsAQuarter);
    }
  }

  @Test
  void onceTheHeldTransactionEndsDeliveryAndThePurgeGoOnByThemselves() throws Exception {
    var dsl = db.dsl();
    var repository = new JooqOutboxRepository(dsl, new ObjectMapper());
    try (Connection holder = db.dataSource().getConnection()) {
      HeldHorizonProbe.holdHorizon(dsl, holder);
      DeepOutbox.insert(dsl, 0, 1_000, 50, false);
      assertThat(drain(repository)).isEqualTo(1_000);
      holder.rollback();
    }
    // Nothing done by hand in between: new messages are delivered, and the purge deletes what was
    // delivered while the transaction was held as well as after.
    DeepOutbox.insert(dsl, 1_000, 1_000, 50, false);
    assertThat(drain(repository)).isEqualTo(1_000);
    assertThat(repository.pendingCount()).isZero();
    assertThat(repository.purge(DeepOutbox.NOW.plusSeconds(1), 100))
        .isEqualTo(new PurgeResult(2_000, 0));
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE)).isZero();
  }

  private static int drain(JooqOutboxRepository repository) {
    int delivered = 0;
    List<OutboxMessage> batch;
    while (!(batch =
            repository.claim(Set.of("t"), 100, 10, Duration.ofSeconds(30), "r", DeepOutbox.NOW))
        .isEmpty()) {
      delivered +=
          repository.markSent("r", batch.stream().map(OutboxMessage::seq).toList(), DeepOutbox.NOW);
    }
    return delivered;
  }

  private static void batches(PurgeRun purge, int count) {
    for (int i = 0; i < count; i++) {
      assertThat(purge.next()).as("batch %d of %d", i + 1, count).isTrue();
    }
  }
}
