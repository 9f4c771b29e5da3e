package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.MigratedSqlite;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured relay as a bean (docs/spring-boot.md, "Lifecycle"): injectable, drained by
 * the application when auto-start is off, a new one after the context is stopped and started again,
 * and a clear failure without a handler.
 */
class RelayBeanTest {

  @RegisterExtension static final MigratedSqlite db = new MigratedSqlite();

  private static ApplicationContextRunner runner() {
    return Contexts.runner(db.database())
        .withPropertyValues("jooq-outbox.relay.poll-interval=50ms");
  }

  static class Placed {
    final List<String> ids = new CopyOnWriteArrayList<>();

    @OutboxListener("order.placed")
    void on(OutboxMessage message) {
      ids.add(message.id());
    }
  }

  /** What an application that drains on its own schedule injects. */
  static class Drainer {
    final OutboxRelay relay;

    Drainer(OutboxRelay relay) {
      this.relay = relay;
    }
  }

  @Test
  void withAutoStartOffTheRelayIsInjectedUnstartedAndDrainsOnTheCallersThread() {
    runner()
        .withPropertyValues("jooq-outbox.relay.auto-start=false")
        .withBean(Placed.class)
        .withBean(Drainer.class)
        .run(
            context -> {
              OutboxRelay relay = context.getBean(Drainer.class).relay;
              assertThat(context.getBean(OutboxRelayLifecycle.class).isRunning()).isFalse();
              assertThat(relay)
                  .isSameAs(context.getBean(OutboxRelayLifecycle.class).relay())
                  .isSameAs(context.getBean(OutboxRelay.class));
              assertThat(relay.topics()).containsExactly("order.placed");
              String id = Contexts.write(context, "customer-1", "order.placed", "{}");
              assertThat(relay.drainOnce(10)).isEqualTo(1);
              assertThat(context.getBean(Placed.class).ids).containsExactly(id);
              assertThat(context.getBean(OutboxAdmin.class).pendingCount()).isZero();
            });
  }

  @Test
  void aContextStartedAgainAnswersItsNewRelay() {
    runner()
        .withBean(Placed.class)
        .run(
            context -> {
              ObjectProvider<OutboxRelay> relays = context.getBeanProvider(OutboxRelay.class);
              OutboxRelay first = relays.getObject();
              context.stop();
              context.start();
              OutboxRelay second = relays.getObject();
              assertThat(second)
                  .isNotSameAs(first)
                  .isSameAs(context.getBean(OutboxRelayLifecycle.class).relay());
              assertThat(context.getBean(OutboxRelayLifecycle.class).isRunning()).isTrue();
              String id = Contexts.write(context, "customer-2", "order.placed", "{}");
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> context.getBean(Placed.class).ids.contains(id));
            });
  }

  @Test
  void withoutAHandlerAskingForTheRelayFailsSayingWhy() {
    runner()
        .withBean(Drainer.class)
        .run(
            context ->
                Contexts.assertFailedSaying(
                    context,
                    "jooq-outbox: there is no relay to inject: no @OutboxListener, handler bean or"
                        + " customizer registers a handler"));
  }

  @Test
  void aWriterOnlyServiceHasNoRelayBean() {
    runner()
        .withPropertyValues("jooq-outbox.relay.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBeanProvider(OutboxRelay.class).getIfAvailable()).isNull();
            });
  }
}
