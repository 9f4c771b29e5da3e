package dev.jooqoutbox.testing;

import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.internal.repository.PurgeRun;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A purge of the model: up to {@code batchSize} rows sent before the cutoff a step. */
final class ModelPurge implements PurgeRun {

  private final Object lock;
  private final Map<Long, ModelRow> rows;
  private final Instant cutoff;
  private final int batchSize;
  private long deleted;

  ModelPurge(Object lock, Map<Long, ModelRow> rows, Instant cutoff, int batchSize) {
    this.lock = lock;
    this.rows = rows;
    this.cutoff = cutoff;
    this.batchSize = batchSize;
  }

  @Override
  public boolean next() {
    synchronized (lock) {
      List<Long> batch =
          rows.values().stream()
              .filter(r -> r.sentAt() != null && r.sentAt().isBefore(cutoff))
              .limit(batchSize)
              .map(ModelRow::seq)
              .toList();
      batch.forEach(rows::remove);
      deleted += batch.size();
      return batch.size() == batchSize;
    }
  }

  @Override
  public PurgeResult deleted() {
    return new PurgeResult(deleted, 0);
  }
}
