package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Duration;

/** The model in memory ({@link ReferenceStore}), new for each test. */
final class ReferenceStoreSubject implements StoreSubject {

  private MutableClock clock;
  private ReferenceStore store;

  ReferenceStoreSubject() {
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
    return store.write(aggregate, topic, delay);
  }

  @Override
  public ModelRow row(long seq) {
    return store.row(seq);
  }

  @Override
  public void pause(String topic) {
    store.pause(topic);
  }

  @Override
  public void resume(String topic) {
    store.resume(topic);
  }

  @Override
  public void reset() {
    clock = new MutableClock(DatabaseFixture.START);
    store = new ReferenceStore(clock);
  }

  @Override
  public void close() {}
}
