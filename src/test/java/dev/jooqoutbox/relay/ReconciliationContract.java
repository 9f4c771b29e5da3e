package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.RemoteRefResult;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.ResolutionConflictException;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.ManualTimers;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.Gauge;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What becomes of an outcome-unknown message: a reconciler asked with backoff, a reconciler that
 * throws, an operator's resolution (idempotent when repeated, refused when it conflicts, settled
 * once under concurrency), a remote reference learned later, and the gauge.
 */
abstract class ReconciliationContract extends RelayContractSupport {

  ReconciliationContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /** A relay whose handler reports every message of "payments" with id in {@code unknown}. */
  OutboxRelayBuilder payments(List<String> unknown, List<String> delivered) {
    return relay()
        .handler(
            "payments",
            m -> {
              delivered.add(m.id());
              if (unknown.remove(m.id())) {
                throw new OutcomeUnknownException("timed out", null, null);
              }
            });
  }

  @Test
  void aReconcilerIsAskedWithBackoffAndItsAnswerUnblocksTheAggregate() {
    String charge = write("card-1", "payments", Map.of("n", 1));
    String after = write("card-1", "payments", Map.of("n", 2));
    List<String> delivered = new CopyOnWriteArrayList<>();
    List<Duration> askedAt = new CopyOnWriteArrayList<>();
    AtomicInteger answers = new AtomicInteger();
    OutboxRelay relay =
        closeLater(
            payments(new ArrayList<>(List.of(charge)), delivered)
                .reconcileBackoff(Duration.ofSeconds(10), Duration.ofMinutes(1))
                .reconciler(
                    "payments",
                    (m, ref) -> {
                      askedAt.add(Duration.between(START, clock.instant()));
                      return answers.incrementAndGet() < 3
                          ? Reconciliation.stillUnknown("ref-" + answers.get())
                          : Reconciliation.sent();
                    })
                .build());

    relay.drainOnce(100);
    assertThat(relay.reconcileOnce()).isZero();
    // Asked 10 s after, then after as long again as it has been unknown: 20 s, 40 s.
    for (int second = 1; second <= 45; second++) {
      clock.advance(Duration.ofSeconds(1));
      relay.reconcileOnce();
      relay.drainOnce(100);
    }
    assertThat(askedAt)
        .containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(40));
    row(charge).assertSentAt(START.plusSeconds(40));
    assertThat(row(charge).getRemoteRef())
        .as("the first reference learned is kept")
        .isEqualTo("ref-1");
    assertThat(row(charge).getResolution()).isEqualTo("sent");
    assertThat(delivered).containsExactly(charge, after);
  }

  @Test
  void aReconcilerCanDeadLetterWithItsReasonAndItsAnswersAreCounted() {
    String charge = write("card-1", "payments", Map.of("n", 1));
    String after = write("card-1", "payments", Map.of("n", 2));
    List<String> delivered = new CopyOnWriteArrayList<>();
    AtomicInteger asked = new AtomicInteger();
    OutboxRelay relay =
        closeLater(
            payments(new ArrayList<>(List.of(charge)), delivered)
                .meterRegistry(registry)
                .reconcileBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .reconciler(
                    "payments",
                    (m, ref) -> {
                      switch (asked.incrementAndGet()) {
                        case 1 -> throw new IllegalStateException("lookup down");
                        case 2 -> {
                          return Reconciliation.stillUnknown();
                        }
                        default -> {
                          return Reconciliation.dead("gateway says it failed");
                        }
                      }
                    })
                .build());

    relay.drainOnce(100);
    for (int second = 1; second <= 3; second++) {
      clock.advance(Duration.ofSeconds(1));
      relay.reconcileOnce();
    }
    relay.drainOnce(100);

    assertThat(asked.get()).isEqualTo(3);
    assertThat(row(charge).getDeadAt()).isEqualTo(START.plusSeconds(3));
    assertThat(row(charge).getLastError()).isEqualTo("reconciled dead: gateway says it failed");
    assertThat(row(charge).getResolution()).isEqualTo("dead");
    assertThat(delivered).containsExactly(charge, after);
    for (String result : List.of("error", "unknown", "dead")) {
      var counter =
          registry
              .find("outbox.relay.reconciled")
              .tag("topic", "payments")
              .tag("result", result)
              .counter();
      assertThat(counter).as(result).isNotNull();
      assertThat(counter.count()).as(result).isEqualTo(1);
    }
    assertThat(RelayLeaseAndShutdownContract.counter(registry, "unknown", "payments")).isEqualTo(1);
  }

  @Test
  void aReconcilerThatThrowsIsAskedAgainLaterAndTheRelayKeepsDelivering() {
    String charge = write("card-1", "payments", Map.of("n", 1));
    String after = write("card-1", "payments", Map.of("n", 2));
    List<String> delivered = new CopyOnWriteArrayList<>();
    AtomicInteger asked = new AtomicInteger();
    // Handlers of other aggregates run at the same time: whether this is the charge's first
    // delivery is kept apart, not read back from the shared list other threads append to.
    AtomicBoolean chargeSeen = new AtomicBoolean();
    // The reconciler asks when the test moves time (ManualTimers); the relay delivers on its own
    // threads meanwhile.
    ManualTimers timers = new ManualTimers(clock);
    OutboxRelay relay =
        closeLater(
            OutboxRelay.builder(dsl)
                .clock(clock)
                .timers(timers)
                .listen(false)
                .pollInterval(Duration.ofMillis(20))
                .maxRun(1)
                .handler(
                    "payments",
                    m -> {
                      delivered.add(m.id());
                      if (m.id().equals(charge) && chargeSeen.compareAndSet(false, true)) {
                        throw new OutcomeUnknownException("timed out", "ref", null);
                      }
                    })
                .reconcileBackoff(Duration.ofMillis(50), Duration.ofMillis(100))
                .reconciler(
                    "payments",
                    (m, ref) -> {
                      if (asked.incrementAndGet() <= 2) {
                        throw new IllegalStateException("remote lookup down");
                      }
                      return Reconciliation.retry();
                    })
                .build());
    relay.start();
    List<String> others = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      others.add(write("other-" + i, "payments", Map.of("n", i)));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.containsAll(others));
    await().atMost(Duration.ofSeconds(30)).until(() -> row(charge).getOutcomeUnknownAt() != null);

    advanceUntil(timers, () -> asked.get() == 2); // asked twice, and twice it threw
    assertThat(row(charge).getOutcomeUnknownAt()).as("still unknown").isNotNull();
    for (int i = 10; i < 20; i++) {
      others.add(write("other-" + i, "payments", Map.of("n", i)));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.containsAll(others));

    advanceUntil(timers, () -> asked.get() == 3); // asked again after its backoff: retry
    // The retried charge, then the row behind it, are found by the relay's poll: on its timers.
    advanceUntil(timers, () -> row(after).isSent());
    timers.advance(Duration.ofSeconds(1));
    assertThat(asked.get()).isEqualTo(3);
    assertThat(delivered.stream().filter(charge::equals).count()).as("retried once").isEqualTo(2);
    assertThat(delivered.indexOf(after)).isGreaterThan(delivered.lastIndexOf(charge));
    assertThat(row(charge).isSent()).isTrue();
  }

  @Test
  void aResolutionWakesTheRelayForTheMessageBehindItWithoutWaitingForThePoll() {
    String charge = write("card-1", "payments", Map.of("n", 1));
    String after = write("card-1", "payments", Map.of("n", 2));
    List<String> delivered = new CopyOnWriteArrayList<>();
    // Time moves only when the test moves it (ManualTimers), and the poll is a minute away.
    ManualTimers timers = new ManualTimers(clock);
    closeLater(
            payments(new ArrayList<>(List.of(charge)), delivered)
                .timers(timers)
                .pollInterval(Duration.ofMinutes(1))
                .reconcileBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .reconciler("payments", (m, ref) -> Reconciliation.sent())
                .build())
        .start();
    await().atMost(Duration.ofSeconds(10)).until(() -> row(charge).getOutcomeUnknownAt() != null);
    assertThat(delivered).containsExactly(charge);

    timers.advance(Duration.ofSeconds(1)); // the reconciler is asked, and resolves it as sent
    await().atMost(Duration.ofSeconds(10)).until(() -> row(after).isSent());
    assertThat(delivered).containsExactly(charge, after);
    assertThat(row(charge).isSent()).isTrue();
  }

  /**
   * Under load on one hot aggregate, with runs claimed behind runs in flight: the handler cannot
   * learn the outcome of every fourth message the first time, and the relay's own reconciler
   * resolves each as sent. The aggregate keeps moving on the relay's own wake-ups (the poll is an
   * hour away and no notification comes), and each message is handled once, in seq order. (With the
   * relay's wake-up on its reconciler's resolution taken out, it waits for the poll and this fails:
   * tried by hand.)
   */
  @Test
  void aHotAggregateWhoseUnknownOutcomesTheReconcilerResolvesKeepsMovingWithoutThePoll() {
    int messages = 120;
    Set<String> unknown = ConcurrentHashMap.newKeySet();
    for (int n = 0; n < messages; n++) {
      String id = write("hot", "payments", Map.of("n", n));
      if (n % 4 == 1) {
        unknown.add(id);
      }
    }
    List<Integer> started = new CopyOnWriteArrayList<>();
    closeLater(
            relay(Clock.systemUTC())
                .pollInterval(Duration.ofHours(1))
                .maxRun(3)
                .handlerConcurrency(4)
                .reconcileBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
                .reconciler("payments", (m, ref) -> Reconciliation.sent())
                .handler(
                    "payments",
                    m -> {
                      started.add(m.payload().get("n").asInt());
                      Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                      if (unknown.remove(m.id())) {
                        throw new OutcomeUnknownException("timed out", null, null);
                      }
                    })
                .build())
        .start();

    await().atMost(Duration.ofSeconds(60)).until(() -> stored().sent() == messages);
    assertThat(unknown).isEmpty();
    assertThat(started).containsExactlyElementsOf(IntStream.range(0, messages).boxed().toList());
  }

  /** Moves time 10 ms at a time until {@code done}, at most a minute of it. */
  private static void advanceUntil(ManualTimers timers, BooleanSupplier done) {
    for (int i = 0; i < 6000 && !done.getAsBoolean(); i++) {
      timers.advance(Duration.ofMillis(10));
    }
    assertThat(done.getAsBoolean()).as("done within a minute of the relay's time").isTrue();
  }

  @Test
  void anOperatorResolvesByHandRepeatsAreAcceptedAndAConflictIsRefused() {
    String sent = write("card-1", "payments", Map.of("n", 1));
    String retried = write("card-2", "payments", Map.of("n", 2));
    String dead = write("card-3", "payments", Map.of("n", 3));
    String behindDead = write("card-3", "payments", Map.of("n", 4));
    String never = write("card-4", "payments", Map.of("n", 5));
    List<String> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            payments(new ArrayList<>(List.of(sent, retried, dead)), delivered)
                .maxAttempts(1)
                .build());
    relay.drainOnce(100);
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.unknownCount()).isEqualTo(3);

    assertThat(admin.resolve(sent, Resolution.SENT)).isTrue();
    assertThat(admin.resolve(retried, Resolution.RETRY)).isTrue();
    assertThat(admin.resolve(dead, Resolution.DEAD)).isTrue();
    assertThat(admin.resolve(sent, Resolution.SENT)).as("the same again").isFalse();
    assertThat(admin.resolve(dead, Resolution.DEAD)).isFalse();
    assertThatThrownBy(() -> admin.resolve(sent, Resolution.DEAD))
        .isInstanceOf(ResolutionConflictException.class)
        .hasMessageContaining("cannot resolve outbox message \"" + sent + "\" as dead")
        .hasMessageContaining("resolved as sent");
    assertThatThrownBy(() -> admin.resolve(never, Resolution.SENT))
        .isInstanceOf(ResolutionConflictException.class)
        .hasMessageContaining("never resolved");
    assertThat(admin.resolve("no-such-id", Resolution.SENT)).as("nothing done").isFalse();

    relay.drainOnce(100);
    row(sent).assertSentAt(START);
    assertThat(row(dead).getDeadAt()).isEqualTo(START);
    assertThat(row(dead).getLastError()).contains("resolved dead by hand");
    // Retried at once, as attempt 1 again although maxAttempts is 1: the unknown one did not count.
    assertThat(row(retried).isSent()).isTrue();
    assertThat(row(retried).getAttempts()).isEqualTo(1);
    assertThat(row(behindDead).isSent()).as("the dead one no longer blocks").isTrue();
    assertThat(delivered.stream().filter(retried::equals).count()).isEqualTo(2);
    assertThat(admin.unknownCount()).isZero();
  }

  /** docs/guide.md: a RETRY redelivers with the attempt() the unknown delivery had. */
  @Test
  void aRetriedUnknownOutcomeIsDeliveredAgainWithTheSameAttempt() {
    String id = write("card-1", "payments", Map.of("n", 1));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .handler(
                    "payments",
                    m -> {
                      attempts.add(m.attempt());
                      if (attempts.size() == 1) {
                        throw new IllegalStateException("gateway down"); // a failed attempt
                      }
                      if (attempts.size() == 2) {
                        throw new OutcomeUnknownException("timed out", null, null);
                      }
                    })
                .build());
    relay.drainOnce(100);
    clock.advance(Duration.ofMinutes(10)); // past any backoff
    relay.drainOnce(100);
    assertThat(row(id).getOutcomeUnknownAt()).isNotNull();

    assertThat(OutboxAdmin.create(dsl, clock).resolve(id, Resolution.RETRY)).isTrue();
    relay.drainOnce(100);
    assertThat(attempts).as("failed, unknown, retried").containsExactly(1, 2, 2);
    assertThat(row(id).isSent()).isTrue();
  }

  @Test
  void concurrentResolutionsOfOneMessageSettleItOnce() throws Exception {
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    for (int round = 0; round < 5; round++) {
      String id = write("card-" + round, "payments", Map.of("n", round));
      closeLater(payments(new ArrayList<>(List.of(id)), new ArrayList<>()).build()).drainOnce(100);
      int resolvers = 8;
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(resolvers);
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < resolvers; i++) {
        Resolution how = Resolution.values()[i % 3];
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  try {
                    return admin.resolve(id, how) ? "won " + how : "again " + how;
                  } catch (ResolutionConflictException refused) {
                    return "refused " + how;
                  }
                }));
      }
      go.countDown();
      List<String> outcomes = new ArrayList<>();
      for (Future<String> f : results) {
        outcomes.add(f.get());
      }
      pool.shutdown();
      List<String> won = outcomes.stream().filter(o -> o.startsWith("won")).toList();
      assertThat(won).as("winners among %s", outcomes).hasSize(1);
      Resolution winner = Resolution.valueOf(won.get(0).substring(4));
      for (String o : outcomes) {
        Resolution how = Resolution.valueOf(o.substring(o.indexOf(' ') + 1));
        if (!o.startsWith("won")) {
          assertThat(o).isEqualTo((how == winner ? "again " : "refused ") + how);
        }
      }
      var r = row(id);
      assertThat(r.getResolution()).isEqualTo(winner.name().toLowerCase());
      assertThat(r.isSent()).isEqualTo(winner == Resolution.SENT);
      assertThat(r.getDeadAt() != null).isEqualTo(winner == Resolution.DEAD);
      assertThat(r.getOutcomeUnknownAt()).isNull();
    }
  }

  @Test
  void aRemoteReferenceLearnedLaterIsAddedAndNeverReplaced() {
    String id = write("card-1", "payments", Map.of("n", 1));
    closeLater(payments(new ArrayList<>(List.of(id)), new ArrayList<>()).build()).drainOnce(100);
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(row(id).getRemoteRef()).isNull();

    assertThat(admin.addRemoteRef(id, "ch_1")).isEqualTo(RemoteRefResult.ADDED);
    assertThat(admin.addRemoteRef(id, "ch_2")).isEqualTo(RemoteRefResult.KEPT);
    assertThat(admin.addRemoteRef(id, "ch_1")).as("the same again").isEqualTo(RemoteRefResult.KEPT);
    assertThat(admin.addRemoteRef("no-such-id", "ch_3")).isEqualTo(RemoteRefResult.NO_MESSAGE);

    assertThat(row(id).getRemoteRef()).isEqualTo("ch_1");
    assertThat(admin.unknownOutcomes(5).get(0).remoteRef()).isEqualTo("ch_1");
  }

  @Test
  void theUnknownCountCountsPastItsStepSize() {
    int many = 2 * 1000 + 1; // the count reads the unknown index 1000 rows a step
    // Rows of outbox_message, where an unknown outcome is kept on every database (on PostgreSQL the
    // event log copies such a message there), marked directly: how they became unknown is not what
    // this test is about.
    BulkMessages.insertRows(
        dsl, many, i -> new BulkMessages.Row("u-" + i, "card-" + i, "payments", "{}", START));
    dsl.update(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE)
        .set(dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE.OUTCOME_UNKNOWN_AT, START)
        .execute();
    OutboxAdmin admin = OutboxAdmin.create(dsl, clock);
    assertThat(admin.unknownCount()).isEqualTo(many);
    assertThat(admin.stats().unknown()).isEqualTo(many);
  }

  @Test
  void theUnknownGaugeCountsOutcomeUnknownMessages() {
    write("card-1", "payments", Map.of("n", 1));
    String unknown = write("card-2", "payments", Map.of("n", 2));
    OutboxRelay relay =
        closeLater(
            payments(new ArrayList<>(List.of(unknown)), new CopyOnWriteArrayList<>())
                .meterRegistry(registry)
                .gaugeInterval(Duration.ofMillis(50))
                .build());
    relay.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Gauge gauge = registry.find("outbox.unknown").gauge();
              return gauge != null && gauge.value() == 1.0;
            });
  }
}
