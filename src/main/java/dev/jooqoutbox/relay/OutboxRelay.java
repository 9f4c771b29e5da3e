package dev.jooqoutbox.relay;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.relay.CurrentMessage;
import dev.jooqoutbox.internal.relay.RelayConfig;
import dev.jooqoutbox.internal.relay.RelayEngine;
import dev.jooqoutbox.internal.schema.SchemaChecks;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox messages to the handlers of their topics: at least once, in {@code seq} order per
 * aggregate, across any number of relays on one database.
 *
 * <p>A producer thread claims runs of ready messages (up to {@code maxRun} consecutive messages of
 * one aggregate, only of the topics this relay has handlers for) whenever the in-flight window
 * ({@code maxInFlight}) has room. Each aggregate's run is a lane: its messages are handled one
 * after the other in seq order, while the lanes of different aggregates run in parallel on {@code
 * handlerConcurrency} threads (asynchronous handlers keep many lanes in flight without holding a
 * thread). Outcomes are written in small batches as they arrive; a slow handler holds only its own
 * lane. When a message fails, its lane stops: the message is retried with backoff (blocking its
 * aggregate) and the rest of the run is given back without using an attempt.
 *
 * <p>Besides returning (sent) and throwing (retry, or dead letter after the last attempt of its
 * topic's {@link RetryPolicy}), a handler can throw {@link OutcomeUnknownException} (held for a
 * {@link OutboxReconciler} or an operator, blocking its aggregate), {@link
 * PermanentFailureException} (dead-lettered at once) or {@link RescheduleException} (delivered
 * again at a chosen time, not counted as a failure).
 *
 * <p>While messages are in flight the relay extends their lease before it runs out, so a slow but
 * alive handler is not delivered twice; a handler past {@code maxHandlingTime} is interrupted and
 * fails its attempt. Backlog gauges and the purge run on a thread of their own.
 *
 * <p>What can repeat: a crash (or a lost database connection) after a handler returned and before
 * its outcome was written delivers that message again, at most the in-flight window per crash. Use
 * {@link dev.jooqoutbox.Inbox} for exactly-once effects.
 *
 * <p>Database errors are logged and retried with backoff; no thread dies from them. Memory is
 * bounded by the in-flight window.
 *
 * <p>When OpenTelemetry is present (see {@link OutboxRelayBuilder#openTelemetry}), each attempt
 * runs inside a consumer span that continues the trace recorded in the message's headers at write
 * time.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

  private final Set<String> topics;
  private final RelayEngine engine;
  private final DSLContext dsl;
  private final OutboxName name;
  private final CountDownLatch closed = new CountDownLatch(1);

  OutboxRelay(RelayConfig config, OutboxName name) {
    this.topics = Set.copyOf(config.handlers().keySet());
    this.engine = new RelayEngine(config);
    this.dsl = config.dsl();
    this.name = name;
  }

  /** A relay on the connections of {@code dsl}; each claim and settle is its own transaction. */
  public static OutboxRelayBuilder builder(DSLContext dsl) {
    return new OutboxRelayBuilder(dsl);
  }

  /** A relay on {@code dataSource}, speaking {@code dialect}. */
  public static OutboxRelayBuilder builder(DataSource dataSource, SQLDialect dialect) {
    return new OutboxRelayBuilder(DSL.using(dataSource, dialect));
  }

  /**
   * The message whose handler is running on this thread, for code the handler calls (for example to
   * record its id with the inbox) without passing it around. Empty outside a handler.
   */
  public static Optional<OutboxMessage> currentMessage() {
    return CurrentMessage.get();
  }

  /** The topics this relay claims: those with a handler. */
  public Set<String> topics() {
    return topics;
  }

  /**
   * Starts the worker thread (and, on PostgreSQL, the LISTEN thread). Call once. The relay's
   * threads are daemon threads: they do not keep the JVM alive (see {@link #awaitClosed}).
   *
   * @throws OutboxException when the outbox's tables are missing in the database (it says how to
   *     migrate them); a database that cannot be reached yet is no error here, the relay retries
   * @throws IllegalStateException when started before or closed
   */
  public void start() {
    requireMigrated();
    engine.start();
  }

  /**
   * Fails at once, naming the missing table and how to migrate, rather than starting threads that
   * would log the same database error at every poll (and nothing without an SLF4J provider).
   */
  private void requireMigrated() {
    boolean migrated;
    try {
      migrated = OutboxSchema.isMigrated(dsl, name);
    } catch (RuntimeException unreachable) {
      return; // the database is not there yet: the relay's polls retry, and say why
    }
    if (!migrated) {
      throw SchemaChecks.notMigrated(name, "no table " + name.outboxTable(), null);
    }
  }

  /**
   * Delivers what is ready now, up to {@code max} messages, on the calling thread, and returns how
   * many were handled (sent, retried, dead-lettered, outcome unknown or rescheduled). For tests and
   * for applications that schedule the relay themselves; database errors propagate.
   */
  public int drainOnce(int max) {
    return engine.drainOnce(max);
  }

  /**
   * Asks the reconcilers, on the calling thread, about the outcome-unknown messages of their topics
   * that are due now, and returns how many were resolved (sent, retried or dead). For tests and for
   * applications that schedule the relay themselves; a started relay does this on its own thread.
   * Database errors propagate; a reconciler's exception does not (the message is asked about again
   * later).
   */
  public int reconcileOnce() {
    return engine.reconcileOnce();
  }

  /**
   * Stops between messages: handlers already running finish (within their lease), the unhandled
   * rest of the claimed batch is released without using an attempt, and the worker ends. Waits at
   * most the shutdown timeout. Idempotent. Close the relay before the pool or DataSource it uses.
   */
  @Override
  public void close() {
    engine.close();
    closed.countDown();
  }

  /**
   * Blocks until {@link #close()} has finished. The relay's threads are daemon threads, so a {@code
   * main} that starts a relay and returns ends the JVM at once, delivering nothing: a worker
   * process whose only work is the relay ends its {@code main} with this, after {@link
   * #closeOnShutdown}.
   *
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public void awaitClosed() throws InterruptedException {
    closed.await();
  }

  /**
   * Closes the relay gracefully when the JVM shuts down (SIGTERM, SIGINT, {@code System.exit}, or
   * the last non-daemon thread ending), then closes {@code thenClose} in order (typically the pool
   * the relay uses), all in one shutdown hook: a separate hook closing the pool could run first,
   * leaving the relay unable to give back what it claimed. Running handlers finish and the rest of
   * the claimed messages is released within the shutdown timeout; a SIGKILL runs nothing, and then
   * the leases run out. An exception from one of {@code thenClose} is logged and the next is still
   * closed.
   */
  public void closeOnShutdown(AutoCloseable... thenClose) {
    List<AutoCloseable> after = List.of(thenClose);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  close();
                  for (AutoCloseable resource : after) {
                    try {
                      resource.close();
                    } catch (Exception e) {
                      log.warn("closing {} after the relay failed", resource, e);
                    }
                  }
                },
                "jooq-outbox-relay-shutdown"));
  }
}
