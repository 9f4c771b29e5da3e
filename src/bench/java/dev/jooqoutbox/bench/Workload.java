package dev.jooqoutbox.bench;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/** The business transaction, the payload and the thread harness the figures share. */
final class Workload {

  private Workload() {}

  static final Table<?> ORDER = DSL.table(DSL.name("bench_order"));
  static final Field<String> CUSTOMER = DSL.field(DSL.name("customer"), String.class);
  static final Field<BigDecimal> AMOUNT = DSL.field(DSL.name("amount"), BigDecimal.class);
  static final Field<Long> CREATED_AT = DSL.field(DSL.name("created_at"), Long.class);
  static final BigDecimal PRICE = new BigDecimal("12.50");

  /** The event every figure writes; about 80 bytes of JSON. */
  record OrderPlaced(long orderId, String customer, String amount, String note) {
    static OrderPlaced of(long i) {
      return new OrderPlaced(i, Workload.customer(i), "12.50", "benchmark payload");
    }
  }

  static String customer(long i) {
    return "c-" + (i % 1000);
  }

  static String aggregate(long i) {
    return "order-" + (i % 1000);
  }

  /** The same JSON Jackson writes for {@link OrderPlaced}, built without Jackson. */
  static String handWrittenJson(long i) {
    return "{\"orderId\":"
        + i
        + ",\"customer\":\""
        + customer(i)
        + "\",\"amount\":\"12.50\",\"note\":\"benchmark payload\"}";
  }

  /** The business row each transaction inserts. */
  static void insertOrder(DSLContext tx, long i) {
    tx.insertInto(ORDER, CUSTOMER, AMOUNT, CREATED_AT)
        .values(customer(i), PRICE, System.currentTimeMillis())
        .execute();
  }

  /** A version-7 UUID like the outbox's default ids, for the hand-written insert. */
  static String uuidV7() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long millis = System.currentTimeMillis() & 0xFFFF_FFFF_FFFFL;
    long high = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(high, low).toString();
  }

  @FunctionalInterface
  interface Tx {
    void run(long i) throws Exception;
  }

  /**
   * Runs {@code tx} on {@code threads} threads for {@code millis} and returns the committed
   * transactions per second. Transactions that finish after the window do not count.
   */
  static double throughput(int threads, long millis, Tx tx) {
    LongAdder done = new LongAdder();
    AtomicLong next = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    long[] window = new long[2];
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  go.await();
                  while (!stop.get()) {
                    tx.run(next.incrementAndGet());
                    if (System.nanoTime() < window[1]) {
                      done.increment();
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                  stop.set(true);
                }
              },
              "bench-writer-" + t);
      w.setDaemon(true);
      workers.add(w);
      w.start();
    }
    try {
      ready.await();
      window[0] = System.nanoTime();
      window[1] = window[0] + TimeUnit.MILLISECONDS.toNanos(millis);
      go.countDown();
      Thread.sleep(millis);
      stop.set(true);
      for (Thread w : workers) {
        w.join(60_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          "a writer failed: " + failure.get().getMessage(), failure.get());
    }
    return done.sum() / (millis / 1000.0);
  }
}
