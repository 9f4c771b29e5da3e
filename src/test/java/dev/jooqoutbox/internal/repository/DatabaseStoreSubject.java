package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;

/** The relay's store on one of the three databases, migrated and emptied for each test. */
final class DatabaseStoreSubject implements StoreSubject {

  private final TestDatabase db;
  private final RelayStore store;
  private MutableClock clock;
  private Outbox outbox;

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
    String id =
        db.dsl()
            .transactionResult(
                tx ->
                    outbox.message(aggregate, topic, Map.of("n", 1)).delay(delay).write(tx.dsl()));
    return db.dsl()
        .select(OUTBOX_MESSAGE.SEQ)
        .from(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.ID.eq(id))
        .fetchSingle(OUTBOX_MESSAGE.SEQ);
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
    outbox = Outbox.builder(db.dsl()).clock(clock).build();
  }

  @Override
  public void close() {
    db.close();
  }
}
