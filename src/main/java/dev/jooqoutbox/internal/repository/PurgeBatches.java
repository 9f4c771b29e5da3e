package dev.jooqoutbox.internal.repository;

import java.time.Instant;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.Table;

/**
 * Deletes the rows of one table whose age column is older than a cutoff, a batch at a time, oldest
 * first: each batch reads the age of the batch's last row ({@code batchSize} rows on) and deletes
 * every row up to that age, so a batch deletes more than {@code batchSize} only by rows of the same
 * age as its last. The next batch reads on past that age, not from the index's first entry: the
 * entries of the rows earlier batches deleted stay in the index until vacuum removes them, and
 * while another transaction holds the xmin horizon it cannot, so every batch that started at the
 * first entry read again everything the purge had deleted so far (its cost grew with the square of
 * the rows deleted). Ranges, not lists of keys: SQLite refuses a thousand keys in one condition.
 * Not thread-safe.
 */
final class PurgeBatches {

  private final DSLContext dsl;
  private final Table<?> table;
  private final Field<Instant> age;
  private final Instant cutoff;
  private final int batchSize;

  /** The age up to which the batches so far deleted; null before the first batch. */
  private Instant past;

  private long deleted;
  private boolean done;

  PurgeBatches(DSLContext dsl, Table<?> table, Field<Instant> age, Instant cutoff, int batchSize) {
    this.dsl = dsl;
    this.table = table;
    this.age = age;
    this.cutoff = cutoff;
    this.batchSize = batchSize;
  }

  /** Deletes the next batch; false once a batch found fewer rows than it may delete. */
  boolean next() {
    if (done) {
      return false;
    }
    Instant last = read(dsl, table, age, cutoff, past, batchSize).fetchOne(age);
    if (last == null || !last.isBefore(cutoff)) {
      deleted += dsl.deleteFrom(table).where(left()).execute();
      done = true;
      return false;
    }
    deleted += dsl.deleteFrom(table).where(left()).and(age.le(last)).execute();
    past = last;
    return true;
  }

  /**
   * The read of a batch after the ages up to {@code past} (null: the first batch): the age of its
   * last row, or a younger age or none when the batch would be short. One-sided on purpose: with a
   * range bounded on both sides PostgreSQL estimated a handful of rows and read the whole range
   * into a sort (a bitmap scan), every batch again (PostgresHeldHorizonPurgeTest).
   */
  static ResultQuery<Record1<Instant>> read(
      DSLContext dsl,
      Table<?> table,
      Field<Instant> age,
      Instant cutoff,
      Instant past,
      int batchSize) {
    return dsl.select(age)
        .from(table)
        .where(past == null ? age.lt(cutoff) : age.gt(past))
        .orderBy(age)
        .offset(batchSize - 1)
        .limit(1);
  }

  /** How many rows the batches so far deleted. */
  long deleted() {
    return deleted;
  }

  /** The rows older than the cutoff that no batch has deleted yet. */
  private Condition left() {
    return past == null ? age.lt(cutoff) : age.lt(cutoff).and(age.gt(past));
  }
}
