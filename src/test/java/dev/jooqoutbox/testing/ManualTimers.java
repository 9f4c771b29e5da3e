package dev.jooqoutbox.testing;

import dev.jooqoutbox.internal.relay.RelayTimers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * {@link RelayTimers} a test drives: the relay's periodic tasks (heartbeat, watchdog) run on the
 * test's thread when it moves time with {@link #advance}, each at its due time on a {@link
 * MutableClock}, so a test of leases and time-outs needs no sleep and runs the same on a loaded
 * machine.
 */
public final class ManualTimers implements RelayTimers {

  private static final class Task {
    final String name;
    final long periodNanos;
    final Runnable work;
    long due;

    Task(String name, long periodNanos, Runnable work, long due) {
      this.name = name;
      this.periodNanos = periodNanos;
      this.work = work;
      this.due = due;
    }
  }

  private final MutableClock clock;
  private final List<Task> tasks = new ArrayList<>();

  public ManualTimers(MutableClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized void every(String name, Duration period, Runnable task) {
    tasks.add(new Task(name, period.toNanos(), task, nanoTime() + period.toNanos()));
  }

  @Override
  public long nanoTime() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public synchronized void close() {
    tasks.clear();
  }

  /**
   * Moves the clock by {@code duration}, stopping at each task's due time on the way to run it
   * (again, one period later, as often as it falls due), in the order they fall due.
   */
  public void advance(Duration duration) {
    long target = nanoTime() + duration.toNanos();
    while (true) {
      Optional<Task> next = nextDueBy(target);
      if (next.isEmpty()) {
        break;
      }
      Task task = next.get();
      if (task.due > nanoTime()) {
        clock.set(instantOf(task.due));
      }
      task.work.run();
      synchronized (this) {
        task.due = nanoTime() + task.periodNanos;
      }
    }
    clock.set(instantOf(target));
  }

  /** The names of the tasks registered, in order: which timers the relay started. */
  public synchronized List<String> names() {
    return tasks.stream().map(t -> t.name).toList();
  }

  private synchronized Optional<Task> nextDueBy(long target) {
    return tasks.stream().filter(t -> t.due <= target).min(Comparator.comparingLong(t -> t.due));
  }

  private static Instant instantOf(long nanos) {
    return Instant.ofEpochSecond(0, nanos);
  }
}
