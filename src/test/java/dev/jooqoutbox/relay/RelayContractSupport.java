package dev.jooqoutbox.relay;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.internal.eventlog.EventShards;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every relay contract needs: one isolated database per class, emptied before each test, a
 * {@link MutableClock} shared by the writer and the relays, and relays that are closed after each
 * test whatever it did.
 */
abstract class RelayContractSupport extends DatabaseFixture {

  private final List<OutboxRelay> relays = new ArrayList<>();

  /** The test database without jOOQ's per-statement DEBUG logging (tens of thousands here). */
  DSLContext dsl;

  /** The meters of {@link #meteredRelay()}'s relays: a fresh registry for each test. */
  SimpleMeterRegistry registry;

  RelayContractSupport(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    dsl = DSL.using(db.dataSource(), db.dialect(), new Settings().withExecuteLogging(false));
  }

  @BeforeEach
  void setUp() {
    outbox = Outbox.builder(dsl).clock(clock).build();
    repository = new JooqOutboxRepository(dsl);
    registry = new SimpleMeterRegistry();
  }

  @AfterEach
  void closeRelays() {
    relays.forEach(OutboxRelay::close);
    relays.clear();
  }

  /** A relay of {@link #relay()} with one handler, closed after the test. */
  OutboxRelay relayOf(String topic, OutboxHandler handler) {
    return closeLater(relay().handler(topic, handler).build());
  }

  /** A relay of {@link #relay()} that retries after 1 s, up to {@code maxAttempts} attempts. */
  OutboxRelay retryingRelay(int maxAttempts, String topic, OutboxHandler handler) {
    return closeLater(
        relay()
            .maxAttempts(maxAttempts)
            .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
            .handler(topic, handler)
            .build());
  }

  /**
   * A relay builder on the test database and the mutable clock, polling every 20 ms, without LISTEN
   * (so writes of other tests on the same PostgreSQL server cannot wake it), with one handler
   * thread and runs of one message: handlers then run one at a time in claim (seq) order, which the
   * assertions of these contracts spell out. Tests of lanes and concurrency set both.
   */
  OutboxRelayBuilder relay() {
    return relay(clock);
  }

  /** {@link #relay()} publishing its meters to {@link #registry}. */
  OutboxRelayBuilder meteredRelay() {
    return relay().meterRegistry(registry);
  }

  OutboxRelayBuilder relay(Clock relayClock) {
    return relay(dsl, relayClock);
  }

  /**
   * {@link #relay()} on {@code on} (the test database with listeners of its own), at that clock.
   */
  OutboxRelayBuilder relay(DSLContext on, Clock relayClock) {
    return OutboxRelay.builder(on)
        .clock(relayClock)
        .listen(false)
        .pollInterval(Duration.ofMillis(20))
        .handlerConcurrency(1)
        .maxRun(1);
  }

  /** Registers {@code relay} to be closed after the test. */
  OutboxRelay closeLater(OutboxRelay relay) {
    relays.add(relay);
    return relay;
  }

  /** Writes one message in its own committed transaction; returns its id. */
  String write(String aggregate, String topic, Object payload) {
    return write(outbox, aggregate, topic, payload);
  }

  String write(Outbox writer, String aggregate, String topic, Object payload) {
    return dsl.transactionResult(tx -> writer.write(tx.dsl(), aggregate, topic, payload));
  }

  /**
   * Writes a row of outbox_message, as the row-state store holds a message on every database (on
   * PostgreSQL: a copy from the event log): for a test that claims with the repository itself.
   * Returns its id.
   */
  String writeRow(String aggregate, String topic, Object payload) {
    long seq = new RowWriter(dsl, clock).write(aggregate, topic, payload);
    return dsl.select(OUTBOX_MESSAGE.ID)
        .from(OUTBOX_MESSAGE)
        .where(OUTBOX_MESSAGE.SEQ.eq(seq))
        .fetchSingle(OUTBOX_MESSAGE.ID);
  }

  /** Message {@code id}, wherever the database keeps it (see {@link MessageRow}). */
  MessageRow row(String id) {
    return MessageRow.of(dsl, clock, id);
  }

  /**
   * When the lease that holds message {@code id} runs out: its row's, or for a message of
   * PostgreSQL's event log the lease of its shard (a relay leases whole shards); null when none.
   */
  Instant leaseOf(String id) {
    MessageRow r = row(id);
    if (r.hasRow()) {
      return r.getLockedUntil();
    }
    return dsl.select(OUTBOX_SHARD.LEASE_UNTIL)
        .from(OUTBOX_SHARD)
        .where(OUTBOX_SHARD.SHARD.eq(EventShards.of(r.getAggregate())))
        .fetchOne(OUTBOX_SHARD.LEASE_UNTIL);
  }

  /** The messages of the outbox, wherever the database keeps them. */
  StoredMessages stored() {
    return StoredMessages.of(dsl, clock);
  }

  /** Waits for {@code latch} like a handler that ignores interrupts (it refuses to stop). */
  static void awaitIgnoringInterrupts(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        if (latch.await(30, TimeUnit.SECONDS)) {
          break;
        }
        throw new IllegalStateException("test latch never released");
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sleeps in a test that must give the relays room to act (not to time anything). */
  static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
