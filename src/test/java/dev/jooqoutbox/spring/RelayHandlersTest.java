package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxHandler;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Handlers from beans: annotated methods with the payload converted to their parameter type, and
 * annotated handler beans (class or {@code @Bean} method, synchronous or asynchronous), delivered
 * by the auto-configured relay on a real SQLite file.
 */
class RelayHandlersTest {

  private static TestDatabase db;
  static final List<String> received = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void database() {
    db = TestDatabase.migrated(TestDatabase.Kind.SQLITE);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.truncate();
    received.clear();
  }

  private static ApplicationContextRunner runner() {
    return Contexts.runner(db).withPropertyValues("jooq-outbox.relay.poll-interval=50ms");
  }

  record Placed(String orderId, long amount) {}

  static class PlacedListener {
    @OutboxListener("order.placed")
    void on(Placed placed, OutboxMessage message) {
      received.add(
          "placed " + placed.orderId() + " " + placed.amount() + " " + message.aggregate());
    }

    @OutboxListener("order.tags")
    void tags(Map<String, List<Integer>> tags) {
      received.add("tags " + tags);
    }
  }

  @OutboxListener("order.shipped")
  static class ShippedHandler implements OutboxHandler {
    @Override
    public void handle(OutboxMessage message) {
      received.add("shipped " + message.aggregate());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Handlers {
    @Bean
    PlacedListener placedListener() {
      return new PlacedListener();
    }

    @Bean
    ShippedHandler shippedHandler() {
      return new ShippedHandler();
    }

    @Bean
    @OutboxListener("order.cancelled")
    OutboxHandler cancelledHandler() {
      return message -> received.add("cancelled " + message.aggregate());
    }

    @Bean
    @OutboxListener("order.published")
    AsyncOutboxHandler publishedHandler() {
      return message ->
          CompletableFuture.runAsync(() -> received.add("published " + message.aggregate()));
    }

    /** Not annotated: the application uses it some other way, the relay leaves it alone. */
    @Bean
    OutboxHandler unrelatedHandler() {
      return message -> received.add("unrelated");
    }
  }

  @Test
  void everyKindOfHandlerReceivesItsTopic() {
    runner()
        .withUserConfiguration(Handlers.class)
        .run(
            context -> {
              assertThat(context.getBean(OutboxRelayLifecycle.class).relay().topics())
                  .containsExactlyInAnyOrder(
                      "order.placed",
                      "order.tags",
                      "order.shipped",
                      "order.cancelled",
                      "order.published");
              Contexts.write(context, "o-1", "order.placed", new Placed("o-1", 42));
              Contexts.write(context, "o-2", "order.tags", "{\"a\":[1,2]}");
              Contexts.write(context, "o-3", "order.shipped", "{}");
              Contexts.write(context, "o-4", "order.cancelled", "{}");
              Contexts.write(context, "o-5", "order.published", "{}");
              await()
                  .atMost(Duration.ofSeconds(20))
                  .untilAsserted(
                      () ->
                          assertThat(received)
                              .containsExactlyInAnyOrder(
                                  "placed o-1 42 o-1",
                                  "tags {a=[1, 2]}",
                                  "shipped o-3",
                                  "cancelled o-4",
                                  "published o-5"));
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> context.getBean(OutboxAdmin.class).pendingCount() == 0);
            });
  }

  @Test
  void aCustomizerChangesTheBuilderAfterThePropertiesAndHandlers() {
    runner()
        .withBean(
            OutboxRelayCustomizer.class,
            () ->
                relay -> relay.handler("order.extra", m -> received.add("extra " + m.aggregate())))
        .run(
            context -> {
              Contexts.write(context, "o-9", "order.extra", "{}");
              await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("extra o-9"));
            });
  }
}
