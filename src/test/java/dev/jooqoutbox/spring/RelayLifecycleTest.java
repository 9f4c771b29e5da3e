package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.MigratedSqlite;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * When the relay runs: off by property or without handlers, backing off for the application's own
 * relay, started with the context, stopped gracefully when it closes; and its metrics in the
 * application's registry.
 */
class RelayLifecycleTest {

  @RegisterExtension static final MigratedSqlite db = new MigratedSqlite();

  private static ApplicationContextRunner runner() {
    return Contexts.runner(db.database())
        .withPropertyValues("jooq-outbox.relay.poll-interval=50ms");
  }

  static class Listener {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean finished;

    @OutboxListener("order.placed")
    void on(OutboxMessage message) throws InterruptedException {
      entered.countDown();
      release.await(10, TimeUnit.SECONDS);
      finished = true;
    }
  }

  @Test
  void theRelayStartsWithTheContextInALatePhase() {
    runner()
        .withBean(Listener.class)
        .run(
            context -> {
              OutboxRelayLifecycle lifecycle = context.getBean(OutboxRelayLifecycle.class);
              assertThat(lifecycle.isRunning()).isTrue();
              assertThat(lifecycle.getPhase())
                  .isEqualTo(SmartLifecycle.DEFAULT_PHASE - 512)
                  .isGreaterThan(SmartLifecycle.DEFAULT_PHASE - 1024);
            });
  }

  @Test
  void closingTheContextLetsTheRunningHandlerFinishAndRecordsItsOutcomeBeforeThePoolCloses()
      throws Exception {
    Listener listener = new Listener();
    var context = runner().withBean(Listener.class, () -> listener);
    context.run(
        running -> {
          Contexts.write(running, "o-1", "order.placed", "{}");
          assertThat(listener.entered.await(20, TimeUnit.SECONDS)).isTrue();
          Thread release =
              new Thread(
                  () -> {
                    try {
                      Thread.sleep(300);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    listener.release.countDown();
                  });
          release.start();
          running.close(); // stops the relay (waiting for the handler), then closes the pool
          release.join();
        });
    assertThat(listener.finished).isTrue();
    OutboxAdmin admin = OutboxAdmin.create(db.dsl());
    assertThat(admin.pendingCount()).isZero();
    assertThat(admin.stats().sentAwaitingPurge()).isEqualTo(1);
  }

  @Test
  void theRelayPropertyTurnsItOffForAWriterOnlyService() {
    runner()
        .withBean(Listener.class)
        .withPropertyValues("jooq-outbox.relay.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class);
              Contexts.write(context, "o-1", "order.placed", "{}");
              assertThat(context.getBean(OutboxAdmin.class).pendingCount()).isEqualTo(1);
            });
  }

  @Test
  void withoutAnyHandlerTheRelayDoesNotRun() {
    runner()
        .run(
            context -> {
              OutboxRelayLifecycle lifecycle = context.getBean(OutboxRelayLifecycle.class);
              assertThat(lifecycle.relay()).isNull();
              assertThat(lifecycle.isRunning()).isFalse();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRelay {
    @Bean(destroyMethod = "close")
    OutboxRelay myRelay() {
      return OutboxRelay.builder(db.dsl()).handler("order.placed", m -> {}).build();
    }
  }

  @Test
  void theApplicationsOwnRelayReplacesTheAutoConfiguredOne() {
    runner()
        .withBean(Listener.class)
        .withUserConfiguration(OwnRelay.class)
        .run(context -> assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class));
  }

  @Test
  void theRelaysMetricsGoToTheApplicationsMeterRegistry() {
    runner()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(PlacedCounter.class)
        .run(
            context -> {
              Contexts.write(context, "o-1", "order.placed", "{}");
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> registry.find("outbox.relay.messages").counter() != null);
            });
  }

  static class PlacedCounter {
    @OutboxListener("order.placed")
    void on(OutboxMessage message) {}
  }

  @Test
  void theRelaySettingsComeFromTheProperties() {
    runner()
        .withBean(PlacedCounter.class)
        .withPropertyValues("jooq-outbox.relay.max-attempts=1")
        .withBean(
            OutboxRelayCustomizer.class,
            () ->
                relay ->
                    relay.handler(
                        "order.failing",
                        m -> {
                          throw new IllegalStateException("no");
                        }))
        .run(
            context -> {
              Contexts.write(context, "o-1", "order.failing", "{}");
              // One attempt: the first failure dead-letters the message.
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> context.getBean(OutboxAdmin.class).deadCount() == 1);
            });
  }
}
