package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.WarningLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the README and the guide tell an application about the relay: its {@code objectMapper} reads
 * what the writer's wrote, so the two must be configured alike; closed before the pool, it stops
 * without a warning (on PostgreSQL its LISTEN connection included).
 */
class RelayInAnApplicationTest {

  /** A payload whose JSON form depends on the mapper's naming strategy. */
  record Order(long orderId) {}

  @ParameterizedTest
  @EnumSource(TestDatabase.Kind.class)
  void payloadAsReadsWithTheRelaysObjectMapperSoItMustMatchTheWriters(TestDatabase.Kind kind) {
    ObjectMapper snakeCase =
        new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    try (TestDatabase db = TestDatabase.migrated(kind)) {
      Outbox outbox = Outbox.builder(db.dsl()).objectMapper(snakeCase).build();
      db.dsl().transaction(tx -> outbox.write(tx.dsl(), "a", "orders", new Order(7)));
      db.dsl().transaction(tx -> outbox.write(tx.dsl(), "b", "orders", new Order(8)));

      List<Object> read = new CopyOnWriteArrayList<>();
      OutboxHandler readOrder = message -> read.add(readOrCatch(message));
      try (OutboxRelay other = OutboxRelay.builder(db.dsl()).handler("orders", readOrder).build();
          OutboxRelay same =
              OutboxRelay.builder(db.dsl())
                  .objectMapper(snakeCase)
                  .handler("orders", readOrder)
                  .build()) {
        other.drainOnce(1); // Jackson's defaults: order_id is an unknown property
        same.drainOnce(1);
      }
      assertThat(read).hasSize(2);
      assertThat(read.get(0)).isInstanceOf(RuntimeException.class);
      assertThat(read.get(1)).isIn(new Order(7), new Order(8));
    }
  }

  private static Object readOrCatch(dev.jooqoutbox.OutboxMessage message) {
    Throwable failure = catchThrowable(() -> message.payloadAs(Order.class));
    return failure != null ? failure : message.payloadAs(Order.class);
  }

  @ParameterizedTest
  @EnumSource(TestDatabase.Kind.class)
  void closedBeforeThePoolTheRelayStopsWithoutAWarning(TestDatabase.Kind kind) {
    TestDatabase db = TestDatabase.migrated(kind);
    Outbox outbox = Outbox.create(db.dsl());
    List<String> delivered = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        OutboxRelay.builder(db.dsl())
            .handler("orders", message -> delivered.add(message.id()))
            .pollInterval(Duration.ofMillis(50))
            .build();
    relay.start();
    String id = db.dsl().transactionResult(tx -> outbox.write(tx.dsl(), "a", "orders", "{}"));
    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains(id));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> OutboxAdmin.create(db.dsl()).pendingCount() == 0);

    try (WarningLog log = WarningLog.capture()) {
      relay.close(); // as Spring destroys a bean before the beans it was built from
      db.close(); // the pool, and the test's schema or database
      assertThat(log.warnings()).as("logged while the relay and then the pool closed").isEmpty();
    }
  }
}
