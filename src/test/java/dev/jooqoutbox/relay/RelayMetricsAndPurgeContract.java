package dev.jooqoutbox.relay;

import static dev.jooqoutbox.relay.RelayLeaseAndShutdownContract.counter;
import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The worker's side jobs: Micrometer metrics (counters and timers as messages are handled, gauges
 * refreshed in the maintenance step between polls) and the periodic purge, which deletes old sent
 * messages and inbox rows and keeps dead letters.
 */
abstract class RelayMetricsAndPurgeContract extends RelayContractSupport {

  private static final Duration HANDLER_WORK = Duration.ofMillis(60);

  RelayMetricsAndPurgeContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @Test
  void metricsCountResultsTimeHandlersAndClaimsAndGaugeTheBacklog() {
    dsl.transaction(
        tx -> {
          for (int i = 1; i <= 3; i++) {
            outbox.write(tx.dsl(), "ok-" + i, "m.ok", Map.of("n", i));
          }
          outbox.write(tx.dsl(), "bad-1", "m.bad", Map.of("n", 0));
          // Stays pending for the gauges: due in a day.
          outbox
              .message("later-1", "m.ok", Map.of("n", 9))
              .delay(Duration.ofDays(1))
              .write(tx.dsl());
        });
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .maxAttempts(2)
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .handler("m.ok", m -> {})
                .handler(
                    "m.bad",
                    m -> {
                      throw new IllegalStateException("always");
                    })
                .build());
    relay.start();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                counter(registry, "sent", "m.ok") == 3
                    && counter(registry, "failed", "m.bad") == 1);
    clock.advance(Duration.ofSeconds(2)); // past the backoff: the last attempt
    await().atMost(Duration.ofSeconds(10)).until(() -> counter(registry, "dead", "m.bad") == 1);
    // Gauges refresh at most every 5 s of the relay's clock, in the step after an idle poll.
    clock.advance(Duration.ofSeconds(10));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> gauge(registry, "outbox.oldest.pending.age") == 12.0);

    assertThat(gauge(registry, "outbox.pending")).isEqualTo(1.0);
    assertThat(counter(registry, "sent", "m.bad")).isZero();
    assertThat(counter(registry, "failed", "m.ok")).isZero();
    assertThat(counter(registry, "dead", "m.ok")).isZero();
    assertThat(timer(registry, "outbox.relay.handler", "m.ok").count()).isEqualTo(3);
    assertThat(timer(registry, "outbox.relay.handler", "m.bad").count()).isEqualTo(2);
    Timer claims = registry.find("outbox.relay.claim").timer();
    assertThat(claims).isNotNull();
    assertThat(claims.count()).isGreaterThanOrEqualTo(2);
    DistributionSummary batches = registry.find("outbox.relay.batch.size").summary();
    assertThat(batches).isNotNull();
    // Non-empty claims only: the first batch (3 ok + 1 bad), then the bad one's last attempt.
    assertThat(batches.count()).isEqualTo(2);
    assertThat(batches.totalAmount()).isEqualTo(5.0);
    assertThat(batches.max()).isEqualTo(4.0);
  }

  @Test
  void metersAreRemovedOnCloseSoTheNextRelayOnTheRegistryReportsItsOwn() {
    write("a", "m.ok", Map.of("n", 1));
    OutboxRelay first = closeLater(meteredRelay().handler("m.ok", m -> {}).build());
    assertThat(first.drainOnce(10)).isOne();
    assertThat(counter(registry, "sent", "m.ok")).isOne();
    assertThat(registry.getMeters()).isNotEmpty();

    first.close();
    assertThat(registry.getMeters()).as("every meter of the closed relay").isEmpty();

    write("b", "m.ok", Map.of("n", 2));
    write("c", "m.ok", Map.of("n", 3));
    OutboxRelay second = closeLater(meteredRelay().handler("m.ok", m -> {}).build());
    assertThat(second.drainOnce(10)).isEqualTo(2);
    // Its own count, not added to the closed relay's: that counter was removed, not reused.
    assertThat(counter(registry, "sent", "m.ok")).isEqualTo(2);
    assertThat(registry.find("outbox.relay.messages").counters()).hasSize(1);
  }

  @Test
  void handlerTimerMeasuresEachHandlersOwnRunningTime() {
    for (int i = 0; i < 3; i++) {
      write("agg-" + i, "m.ok", Map.of("n", i));
    }
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .handlerConcurrency(1)
                .handler("m.ok", m -> Thread.sleep(HANDLER_WORK.toMillis())) // stands for real work
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(3);

    // With one slot the three handlers run one after the other: each took its full time.
    Timer handlers = timer(registry, "outbox.relay.handler", "m.ok");
    assertThat(handlers.count()).isEqualTo(3);
    assertThat(handlers.totalTime(TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(3.0 * HANDLER_WORK.toMillis());
  }

  @Test
  void purgeDeletesOldSentMessagesAndInboxRowsButKeepsDeadLetters() {
    // Rows of outbox_message, which the purge deletes one by one on every database (on PostgreSQL
    // the event log's copies; EventRetentionTest has the log's partitions).
    String oldSent = writeRow("a", "orders", Map.of("n", 1));
    String alsoOld = writeRow("b", "orders", Map.of("n", 1));
    String poison = writeRow("p", "orders", Map.of("n", 1));
    Inbox inbox = new Inbox(clock);
    dsl.transaction(tx -> inbox.seen(tx.dsl(), "billing", oldSent));
    ManualTimers timers = new ManualTimers(clock);
    OutboxRelay relay =
        closeLater(
            relay()
                .timers(timers)
                .maxAttempts(1)
                .retention(Duration.ofHours(1))
                .purgeInterval(Duration.ofMinutes(1))
                .handler(
                    "orders",
                    m -> {
                      if (m.aggregate().equals("p")) {
                        throw new IllegalStateException("poison");
                      }
                    })
                .build());
    assertThat(relay.drainOnce(100)).isEqualTo(3); // sent and dead at START
    clock.advance(Duration.ofMinutes(90));
    String recent = writeRow("c", "orders", Map.of("n", 1));
    assertThat(relay.drainOnce(100)).isEqualTo(1); // sent at START + 90 min

    relay.start();
    timers.advance(Duration.ZERO); // the first tick purges what was sent before START + 30 min
    assertThat(exists(oldSent)).isFalse();
    assertThat(exists(alsoOld)).isFalse();
    assertThat(dsl.fetchCount(INBOX_MESSAGE)).isZero();
    assertThat(exists(recent)).isTrue();
    assertThat(row(poison).getDeadAt()).isEqualTo(START);

    clock.advance(Duration.ofHours(2)); // the next purge, a purge interval later
    timers.advance(Duration.ZERO);
    assertThat(exists(recent)).isFalse();
    assertThat(row(poison).getDeadAt()).as("dead letters are never purged").isEqualTo(START);
    assertThat(stored().count()).isOne();
    assertThat(repository.deadLetters(DeadLetterQuery.all().limit(10)).letters()).hasSize(1);
  }

  @Test
  void aPurgeOfSeveralBatchesDeletesEveryOldRowAndKeepsTheYoungerOnes() {
    // 2,500 rows sent long ago: the relay's purge deletes them 1,000 a batch, each batch a task of
    // its own on the housekeeping thread, resting between them.
    BulkMessages.insertRows(
        dsl,
        2_500,
        i -> new BulkMessages.Row("old-" + i, "a-" + i, "orders", "{}", START.minusSeconds(7200)));
    dsl.update(OUTBOX_MESSAGE).set(OUTBOX_MESSAGE.SENT_AT, START.minusSeconds(3600)).execute();
    String recent = writeRow("recent", "orders", Map.of("n", 1));
    ManualTimers timers = new ManualTimers(clock);
    OutboxRelay relay =
        closeLater(
            relay()
                .timers(timers)
                .retention(Duration.ofMinutes(30))
                .purgeInterval(Duration.ofMinutes(1))
                .handler("orders", m -> {})
                .build());
    assertThat(relay.drainOnce(100)).isEqualTo(1); // sent at START
    clock.advance(Duration.ofMinutes(1));

    relay.start();
    // Each batch a task of its own on the housekeeping timer, after a rest nine times as long as
    // the
    // batch took (no time at all on the test's clock): the three batches run in this advance.
    timers.advance(Duration.ZERO);
    assertThat(stored().count()).isOne();
    assertThat(exists(recent)).isTrue();
  }

  @Test
  void purgeWaitsForItsInterval() {
    String sent = writeRow("a", "orders", Map.of("n", 1));
    ManualTimers timers = new ManualTimers(clock);
    OutboxRelay relay =
        closeLater(
            meteredRelay()
                .timers(timers)
                .retention(Duration.ofMinutes(1))
                .purgeInterval(Duration.ofHours(1))
                .handler("orders", m -> {})
                .build());
    assertThat(relay.drainOnce(100)).isEqualTo(1);
    dsl.transaction(
        tx -> outbox.message("b", "orders", Map.of()).delay(Duration.ofDays(1)).write(tx.dsl()));
    clock.advance(Duration.ofMinutes(30)); // old enough, but the first purge is due at START + 1 h
    relay.start();
    timers.advance(Duration.ZERO); // the first tick: no purge yet, the gauges set
    assertThat(gauge(registry, "outbox.pending")).isEqualTo(1.0);
    assertThat(exists(sent)).isTrue();

    clock.advance(Duration.ofMinutes(29).plusSeconds(50));
    timers.advance(Duration.ZERO); // a tick at START + 59 min 50 s: not due yet
    assertThat(exists(sent)).isTrue();
    clock.advance(Duration.ofSeconds(10));
    timers.advance(Duration.ZERO); // a tick at START + 1 h: due
    assertThat(exists(sent)).isFalse();
  }

  private boolean exists(String id) {
    return dsl.fetchExists(OUTBOX_MESSAGE, OUTBOX_MESSAGE.ID.eq(id));
  }

  private static double gauge(SimpleMeterRegistry registry, String name) {
    Gauge gauge = registry.find(name).gauge();
    assertThat(gauge).as(name).isNotNull();
    return gauge.value();
  }

  private static Timer timer(SimpleMeterRegistry registry, String name, String topic) {
    Timer timer = registry.find(name).tags("topic", topic).timer();
    assertThat(timer).as(name + " of " + topic).isNotNull();
    return timer;
  }
}
