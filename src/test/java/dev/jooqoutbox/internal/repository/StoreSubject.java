package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.testing.ModelRow;
import dev.jooqoutbox.testing.MutableClock;
import java.time.Duration;

/**
 * A {@link RelayStore} under test with what a test needs around it: writing messages as an
 * application does, reading a row back, and the clock writes take their time from. One per test
 * class; {@link #reset} before each test.
 */
interface StoreSubject extends AutoCloseable {

  RelayStore store();

  /** The clock writes take their time from; a test moves it. */
  MutableClock clock();

  /** Writes a message, committed, due {@code delay} after the clock's time; returns its seq. */
  long write(String aggregate, String topic, Duration delay);

  /** The row {@code seq} as the model would hold it, or null when there is none. */
  ModelRow row(long seq);

  /** An operator pauses {@code topic} (OutboxAdmin.pause on a database). */
  void pause(String topic);

  /** An operator resumes {@code topic}. */
  void resume(String topic);

  /** Empties the store and sets the clock back to the start. */
  void reset();

  @Override
  void close();
}
