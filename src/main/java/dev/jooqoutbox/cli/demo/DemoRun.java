package dev.jooqoutbox.cli.demo;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutboxRelayBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;

/**
 * One run of the demo: reset the database, place the orders from a few writer threads while the
 * relays deliver them to the ledger, wait until nothing is pending, then check the invariants.
 */
final class DemoRun {

  /** Enough attempts that a fail rate of a few percent never exhausts one (0.05^20). */
  static final int MAX_ATTEMPTS = 20;

  private static final Duration BACKOFF_INITIAL = Duration.ofMillis(50);
  private static final Duration BACKOFF_MAX = Duration.ofSeconds(1);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
  private static final long TICK_MILLIS = 100;
  private static final long DRAIN_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final DemoDatabase db;
  private final DemoSettings settings;
  private final ProgressBar.Mode progressMode;
  private final java.io.PrintWriter progressOut;
  private final DemoBroker broker;
  private final ObjectMapper mapper = new ObjectMapper();

  /** {@code broker}: the broker the relays publish through ({@code --publish}), or null. */
  DemoRun(
      DemoDatabase db,
      DemoSettings settings,
      ProgressBar.Mode progressMode,
      java.io.PrintWriter progressOut,
      DemoBroker broker) {
    this.db = db;
    this.settings = settings;
    this.progressMode = progressMode;
    this.progressOut = progressOut;
    this.broker = broker;
  }

  /** Migrates the outbox, empties it and the inbox, and recreates the demo tables. */
  void prepare() {
    OutboxSchema.migrate(db.dataSource());
    DSLContext dsl = db.dsl();
    if (!settings.wipe()) {
      boolean foreignMessages =
          OutboxAdmin.create(dsl).statsByTopic().keySet().stream()
              .anyMatch(topic -> !topic.equals(OrderPlaced.TOPIC));
      boolean foreignInbox =
          dsl.fetchExists(INBOX_MESSAGE, INBOX_MESSAGE.CONSUMER.ne(LedgerConsumer.CONSUMER));
      if (foreignMessages || foreignInbox) {
        throw new DemoException(
            db.displayUrl()
                + " holds "
                + (foreignMessages ? "outbox messages" : "inbox records")
                + " the demo did not write. The demo empties the outbox and inbox_message"
                + " before it runs, so it stops here: point it at a database of its own, or add"
                + " --wipe if those rows may be deleted.");
      }
    }
    dsl.deleteFrom(OUTBOX_MESSAGE).execute();
    dsl.deleteFrom(INBOX_MESSAGE).execute();
    // PostgreSQL's event log (changeset 009) holds what was written there: emptied too.
    if (!dsl.meta().getTables(OUTBOX_EVENT.getName()).isEmpty()) {
      dsl.truncate(OUTBOX_EVENT).execute();
      dsl.deleteFrom(OUTBOX_EVENT_KEY).execute();
    }
    DemoTables.recreate(dsl);
  }

  /** Runs the demo on the prepared database and returns what happened. */
  DemoReport run() {
    DSLContext dsl = db.dsl();
    DemoCounters counters = new DemoCounters(settings.orders());
    ProgressBar bar = new ProgressBar(progressOut, progressMode, settings.orders());
    Outbox outbox = Outbox.builder(dsl).objectMapper(mapper).build();
    LedgerConsumer ledger =
        new LedgerConsumer(
            dsl,
            new Inbox(),
            counters,
            settings.failRate(),
            settings.duplicateRate(),
            MAX_ATTEMPTS);
    OrdersService orders = new OrdersService(dsl, outbox, counters);
    OutboxAdmin admin = OutboxAdmin.create(dsl);

    List<OutboxRelay> relays = new ArrayList<>();
    ExecutorService writers =
        Executors.newFixedThreadPool(settings.writers(), named("demo-writer"));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writersDoneNanos = new AtomicLong();
    long start = System.nanoTime();
    long deadline = start + settings.timeout().toNanos();
    boolean drained = false;
    long drainedNanos = 0;
    long peakBacklog = 0;
    try (DemoLogging.Restore quiet = DemoLogging.quietRelay()) {
      if (broker != null) {
        broker.startConsumer(
            (id, json) -> ledger.bookFromBroker(id, mapper.readValue(json, OrderPlaced.class)));
      }
      for (int i = 0; i < settings.relays(); i++) {
        OutboxRelayBuilder builder = OutboxRelay.builder(dsl);
        if (broker != null) {
          builder.asyncHandler(OrderPlaced.TOPIC, broker.newPublisher());
        } else {
          builder.handler(OrderPlaced.TOPIC, ledger);
        }
        OutboxRelay relay =
            builder
                .handlerConcurrency(settings.handlerThreads())
                .maxAttempts(MAX_ATTEMPTS)
                .backoff(BACKOFF_INITIAL, BACKOFF_MAX)
                .pollInterval(POLL_INTERVAL)
                .shutdownTimeout(Duration.ofSeconds(10))
                .objectMapper(mapper)
                .build();
        relays.add(relay);
        relay.start();
      }
      List<Future<?>> writing = startWriters(writers, orders, stop, writersDoneNanos);

      long lastDrainCheck = start - DRAIN_CHECK_NANOS;
      while (true) {
        long now = System.nanoTime();
        bar.update(counters, now - start);
        peakBacklog = Math.max(peakBacklog, counters.written() - counters.booked());
        boolean written = allDone(writing);
        if (written && now - lastDrainCheck >= DRAIN_CHECK_NANOS) {
          lastDrainCheck = now;
          // Through a broker, "sent" is the broker's confirmation: the ledger books afterwards.
          if (admin.pendingCount() == 0
              && (broker == null || counters.booked() >= counters.written())) {
            drained = true;
            drainedNanos = System.nanoTime() - start;
            break;
          }
        }
        if (now - deadline >= 0) {
          break;
        }
        Thread.sleep(TICK_MILLIS);
      }
      stop.set(true);
      bar.finish(counters, System.nanoTime() - start);
      relays.forEach(OutboxRelay::close);
      writers.shutdown();
      writers.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DemoException("interrupted", e);
    } finally {
      stop.set(true);
      relays.forEach(OutboxRelay::close);
      writers.shutdownNow();
    }

    long writtenNanos = writersDoneNanos.get() == 0 ? 0 : writersDoneNanos.get() - start;
    return new DemoReport(
        settings,
        counters.written(),
        writtenNanos,
        counters.booked(),
        drained ? drainedNanos : 0,
        counters.sortedLatencies(),
        peakBacklog,
        counters.retried(),
        counters.dead(),
        counters.duplicatesDropped(),
        drained ? null : settings.timeout(),
        InvariantCheck.run(dsl, counters.written()));
  }

  /**
   * Starts the writers. Each owns a fixed share of the customers, so one customer's orders are
   * placed one after another by one thread: its placement order is its commit order.
   */
  private List<Future<?>> startWriters(
      ExecutorService writers,
      OrdersService orders,
      AtomicBoolean stop,
      AtomicLong writersDoneNanos) {
    int writerCount = settings.writers();
    AtomicLong nextOrderId = new AtomicLong();
    AtomicInteger running = new AtomicInteger(writerCount);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writerCount; w++) {
      int writer = w;
      int quota = settings.orders() / writerCount + (w < settings.orders() % writerCount ? 1 : 0);
      futures.add(
          writers.submit(
              () -> {
                try {
                  placeOrders(writer, writerCount, quota, orders, nextOrderId, stop);
                } finally {
                  if (running.decrementAndGet() == 0) {
                    writersDoneNanos.set(System.nanoTime());
                  }
                }
                return null;
              }));
    }
    return futures;
  }

  private void placeOrders(
      int writer,
      int writerCount,
      int quota,
      OrdersService orders,
      AtomicLong nextOrderId,
      AtomicBoolean stop) {
    int owned = (settings.customers() - writer + writerCount - 1) / writerCount;
    int[] placed = new int[owned];
    SplittableRandom random = new SplittableRandom();
    // Paced writers place order i of theirs no earlier than start + i * interval.
    long intervalNanos = settings.rate() == 0 ? 0 : 1_000_000_000L * writerCount / settings.rate();
    long paceStart = System.nanoTime();
    for (int i = 0; i < quota && !stop.get(); i++) {
      if (intervalNanos > 0) {
        long wait = paceStart + i * intervalNanos - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
      }
      // A writer's first orders go one to each customer it owns, so with at least as many orders
      // as customers every customer has some (and the order check covers all of them); the rest
      // go to its customers at random.
      int pick = i < owned ? i : random.nextInt(owned);
      int customer = writer + pick * writerCount;
      orders.place(
          new OrderPlaced(
              nextOrderId.incrementAndGet(),
              customerId(customer),
              random.nextLong(100, 100_000),
              ++placed[pick],
              System.currentTimeMillis()));
    }
  }

  static String customerId(int customer) {
    return String.format(Locale.ROOT, "customer-%05d", customer + 1);
  }

  private static boolean allDone(List<Future<?>> writing) {
    boolean done = true;
    for (Future<?> f : writing) {
      if (!f.isDone()) {
        done = false;
      } else {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw new DemoException("placing an order failed: " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new DemoException("interrupted", e);
        }
      }
    }
    return done;
  }

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
