package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;

/** The relay's store on one of the three databases, migrated and emptied for each test. */
final class DatabaseStoreSubject implements StoreSubject {

  private final TestDatabase db;
  private final RelayStore store;
  private MutableClock clock;
  private RowWriter writer;

  DatabaseStoreSubject(TestDatabase.Kind kind) {
    this.db = TestDatabase.migrated(kind);
    this.store = new DatabaseRelayStore(new JooqOutboxRepository(db.dsl()));
    reset();
  }

  @Override
  public RelayStore store() {
    return store;
  }

  @Override
  public MutableClock clock() {
    return clock;
  }

  @Override
  public long write(String aggregate, String topic, Duration delay) {
    // A row of outbox_message on every database: this store is the row-state one (on PostgreSQL,
    // the store of the event log's copies; EventLogContract covers the log).
    return writer.write(aggregate, topic, Map.of("n", 1), delay);
  }

  @Override
  public ModelRow row(long seq) {
    OutboxMessageRecord r =
        db.dsl().selectFrom(OUTBOX_MESSAGE).where(OUTBOX_MESSAGE.SEQ.eq(seq)).fetchOne();
    if (r == null) {
      return null;
    }
    return new ModelRow(
        r.getSeq(),
        r.getId(),
        r.getAggregate(),
        r.getTopic(),
        r.getCreatedAt(),
        r.getAvailableAt(),
        r.getAttempts(),
        r.getClaimToken(),
        r.getLockedUntil(),
        r.getSentAt(),
        r.getDeadAt(),
        r.getOutcomeUnknownAt(),
        r.getLastError(),
        r.getRemoteRef(),
        r.getResolution(),
        true);
  }

  @Override
  public void pause(String topic) {
    OutboxAdmin.create(db.dsl(), clock).pause(topic);
  }

  @Override
  public void resume(String topic) {
    OutboxAdmin.create(db.dsl(), clock).resume(topic);
  }

  @Override
  public void reset() {
    db.truncate();
    clock = new MutableClock(DatabaseFixture.START);
    writer = new RowWriter(db.dsl(), clock);
  }

  @Override
  public void close() {
    db.close();
  }
}
