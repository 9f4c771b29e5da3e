package dev.jooqoutbox.testing;

import dev.jooqoutbox.internal.relay.RelayTimers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * {@link RelayTimers} a test drives: the relay's timed work (heartbeat, watchdog, housekeeping,
 * reconciler) runs on the test's thread when it moves time with {@link #advance}, each task at its
 * due time on a {@link MutableClock}, and a relay thread's timed wait (the producer's poll, a
 * backoff after a database error) ends when {@link #advance} moves time past it, not before, so a
 * test of leases, time-outs, purges, reconciliation, polls and retries needs no sleep and runs the
 * same on a loaded machine. Move time with {@link #advance} only: the clock moved by hand ends no
 * wait.
 */
public final class ManualTimers implements RelayTimers {

  private static final class Task {
    final String timer;
    final long periodNanos; // 0: runs once
    final Runnable work;
    final long order;
    long due;

    Task(String timer, long periodNanos, Runnable work, long due, long order) {
      this.timer = timer;
      this.periodNanos = periodNanos;
      this.work = work;
      this.due = due;
      this.order = order;
    }
  }

  /** A relay thread waiting on {@code condition} until {@code due}. */
  private record Waiter(Lock lock, Condition condition, long due) {}

  private final MutableClock clock;
  private final List<Task> tasks = new ArrayList<>();
  private final List<Waiter> waiters = new ArrayList<>();
  private final LinkedHashSet<String> timers = new LinkedHashSet<>();
  private long added;
  private boolean closed;

  public ManualTimers(MutableClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized Timer timer(String name) {
    timers.add(name);
    return new Timer() {
      @Override
      public void every(Duration first, Duration period, Runnable task) {
        add(name, period.toNanos(), task, first);
      }

      @Override
      public void after(Duration delay, Runnable task) {
        add(name, 0, task, delay);
      }
    };
  }

  private synchronized void add(String timer, long periodNanos, Runnable work, Duration delay) {
    if (closed) {
      throw new RejectedExecutionException("the timers are closed");
    }
    tasks.add(new Task(timer, periodNanos, work, nanoTime() + delay.toNanos(), added++));
  }

  @Override
  public long nanoTime() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public long awaitNanos(Lock lock, Condition condition, long nanos) throws InterruptedException {
    Waiter waiter;
    synchronized (this) {
      // Its due time and its place in the list under one monitor with advance's move of the
      // clock: a move either comes before (and the due time counts from it) or finds it listed.
      waiter = new Waiter(lock, condition, nanoTime() + nanos);
      waiters.add(waiter);
    }
    try {
      condition.await();
    } finally {
      synchronized (this) {
        waiters.remove(waiter);
      }
    }
    return waiter.due - nanoTime();
  }

  @Override
  public synchronized void close() {
    closed = true;
    tasks.clear();
  }

  /**
   * Moves the clock by {@code duration}, stopping at each task's due time on the way to run it (a
   * periodic one again one period after it ran, as often as it falls due), in the order they fall
   * due; {@link Duration#ZERO} runs what is due now.
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
        moveTo(task.due);
      }
      task.work.run();
      synchronized (this) {
        if (task.periodNanos == 0) {
          tasks.remove(task);
        } else {
          task.due = nanoTime() + task.periodNanos;
        }
      }
    }
    if (target > nanoTime()) {
      moveTo(target);
    }
  }

  /** Sets the clock and ends the waits due by then (signalled outside this monitor: see await). */
  private void moveTo(long nanos) {
    List<Waiter> due;
    synchronized (this) {
      clock.set(instantOf(nanos));
      due = waiters.stream().filter(w -> w.due <= nanos).toList();
    }
    for (Waiter w : due) {
      w.lock.lock();
      try {
        w.condition.signalAll();
      } finally {
        w.lock.unlock();
      }
    }
  }

  /** How many relay threads wait for time to pass (a poll, a backoff). */
  public synchronized int waiting() {
    return waiters.size();
  }

  /** The names of the timers the relay took, in order. */
  public synchronized List<String> names() {
    return List.copyOf(timers);
  }

  private synchronized Optional<Task> nextDueBy(long target) {
    return tasks.stream()
        .filter(t -> t.due <= target)
        .min(Comparator.<Task>comparingLong(t -> t.due).thenComparingLong(t -> t.order));
  }

  private static Instant instantOf(long nanos) {
    return Instant.ofEpochSecond(0, nanos);
  }
}
