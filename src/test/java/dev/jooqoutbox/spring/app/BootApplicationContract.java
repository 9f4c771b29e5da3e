package dev.jooqoutbox.spring.app;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_SHARD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;

import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.spring.BootLine;
import dev.jooqoutbox.spring.actuator.HealthProbe;
import dev.jooqoutbox.spring.actuator.OutboxEndpoint;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Spring Boot application ({@link OrdersApplication}) on a real database: its Liquibase
 * creates its tables and the outbox's, its {@code @Transactional} methods write orders and
 * messages, its {@code @OutboxListener}s consume them, and it is stopped and started again.
 */
abstract class BootApplicationContract {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static TestDatabase db;
  private final List<ConfigurableApplicationContext> apps = new ArrayList<>();

  static void database(TestDatabase.Kind kind) {
    db = TestDatabase.empty(kind);
  }

  @AfterAll
  static void dropDatabase() {
    db.close();
  }

  @BeforeEach
  void reset() {
    Listeners.LEDGER_CALLS.clear();
    Listeners.SHIPMENT_CALLS.clear();
    Listeners.REJECTING.set(false);
  }

  @AfterEach
  void stopAndClean() {
    apps.forEach(ConfigurableApplicationContext::close);
    apps.clear();
    db.truncate();
    db.dsl().deleteFrom(table("orders")).execute();
    db.dsl().deleteFrom(table("ledger")).execute();
  }

  private ConfigurableApplicationContext start(String... more) {
    ConfigurableApplicationContext app =
        new SpringApplicationBuilder(OrdersApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + db.url(),
                "spring.datasource.hikari.maximum-pool-size=6",
                "spring.jooq.sql-dialect=" + db.dialect().name(),
                "spring.liquibase.change-log=classpath:db/changelog/orders-app.xml",
                "jooq-outbox.relay.poll-interval=50ms",
                "jooq-outbox.relay.max-attempts=1",
                "jooq-outbox.relay.concurrency=3",
                "jooq-outbox.health.max-pending-age=1s",
                "management.endpoints.web.exposure.include=health,outbox")
            .properties(more) // later ones win
            .run();
    apps.add(app);
    return app;
  }

  private static DSLContext dsl() {
    return db.dsl();
  }

  private static int count(String table) {
    return dsl().fetchCount(table(table));
  }

  /** Whether message {@code id} is a row of outbox_message (every message but a log's one). */
  private static boolean hasRow(String id) {
    return dsl().fetchExists(OUTBOX_MESSAGE, OUTBOX_MESSAGE.ID.eq(id));
  }

  @Test
  void anOrderWrittenInATransactionReachesTheLedgerOnceThroughTheInbox() {
    ConfigurableApplicationContext app = start();
    OrderService orders = app.getBean(OrderService.class);
    for (int i = 0; i < 10; i++) {
      orders.place("o-" + i, "customer-" + (i % 3), 100 + i, "order.placed");
    }
    OutboxAdmin admin = app.getBean(OutboxAdmin.class);
    await().atMost(WAIT).until(() -> count("ledger") == 10 && admin.pendingCount() == 0);

    // A second delivery of a handled message (as after a crash before the relay recorded it):
    // the inbox drops it, the ledger keeps one row.
    String again = Listeners.LEDGER_CALLS.keySet().iterator().next();
    OutboxAdmin after;
    if (db.kind() == TestDatabase.Kind.POSTGRES && !hasRow(again)) {
      // PostgreSQL's event log records no state per message, only a position per shard (what a
      // crash before it was written leaves behind): the application stops (its relay writes the
      // positions and gives the shards back), the position of the message's shard goes back to
      // the start, and the relay of the restarted application reads the shard, this message
      // with it, again.
      app.close();
      dsl()
          .update(OUTBOX_SHARD)
          .set(OUTBOX_SHARD.LOWER_SNAPSHOT, "1:1:")
          .setNull(OUTBOX_SHARD.UPPER_SNAPSHOT)
          .setNull(OUTBOX_SHARD.AFTER_TXID)
          .setNull(OUTBOX_SHARD.AFTER_SEQ)
          .where(
              OUTBOX_SHARD.SHARD.eq(
                  dsl()
                      .select(OUTBOX_EVENT.SHARD)
                      .from(OUTBOX_EVENT)
                      .where(OUTBOX_EVENT.ID.eq(again))))
          .execute();
      // Pending again, as the row of another database is once its sent_at is cleared.
      assertThat(OutboxAdmin.create(dsl()).message(again).orElseThrow().status())
          .isEqualTo(MessageStatus.PENDING);
      after = start().getBean(OutboxAdmin.class);
    } else {
      dsl()
          .update(OUTBOX_MESSAGE)
          .setNull(OUTBOX_MESSAGE.SENT_AT)
          .setNull(OUTBOX_MESSAGE.LOCKED_UNTIL)
          .setNull(OUTBOX_MESSAGE.CLAIM_TOKEN)
          .set(OUTBOX_MESSAGE.ATTEMPTS, 0)
          .where(OUTBOX_MESSAGE.ID.eq(again))
          .execute();
      after = admin;
    }
    await().atMost(WAIT).until(() -> after.pendingCount() == 0);
    assertThat(after.message(again).orElseThrow().status()).isEqualTo(MessageStatus.SENT);
    assertThat(count("ledger")).isEqualTo(10);
    assertThat(count("inbox_message")).isEqualTo(10);
  }

  @Test
  void aCommittedWriteWakesTheRelayRightAfterSpringsCommit() {
    // No LISTEN and a poll of a minute: only the after-commit wake-up can deliver it in seconds.
    ConfigurableApplicationContext app =
        start("jooq-outbox.relay.poll-interval=60s", "jooq-outbox.relay.wake-up=false");
    OrderService orders = app.getBean(OrderService.class);
    await().pollDelay(Duration.ofMillis(500)).until(() -> true); // the relay's first poll is over
    orders.place("o-1", "customer-1", 7, "order.placed");
    await().atMost(Duration.ofSeconds(10)).until(() -> count("ledger") == 1);
  }

  @Test
  void aRolledBackTransactionDropsItsMessage() {
    ConfigurableApplicationContext app = start();
    OrderService orders = app.getBean(OrderService.class);
    assertThatThrownBy(() -> orders.placeThenFail("o-1", "customer-1", 5))
        .hasMessageContaining("payment refused");
    orders.place("o-2", "customer-1", 6, "order.placed");
    await().atMost(WAIT).until(() -> count("ledger") == 1);
    assertThat(count("orders")).isEqualTo(1);
    assertThat(StoredMessages.of(dsl()).count()).isEqualTo(1);
    assertThat(dsl().select(field("order_id")).from(table("ledger")).fetchOne(0)).isEqualTo("o-2");
  }

  @Test
  void aGracefulShutdownWithMessagesInFlightLosesNoneAndHandlesNoneTwice() {
    ConfigurableApplicationContext first = start();
    OrderService orders = first.getBean(OrderService.class);
    int total = 60;
    orders.placeAll(total, 6, "order.shipped");
    await().atMost(WAIT).until(() -> Listeners.SHIPMENT_CALLS.size() >= 6);
    first.close(); // while handlers run and claimed messages wait

    Map<String, Integer> beforeRestart = Map.copyOf(Listeners.SHIPMENT_CALLS);
    assertThat(beforeRestart.values()).allMatch(calls -> calls == 1);
    List<String> sent =
        StoredMessages.of(dsl()).all().stream()
            .filter(m -> m.status() == MessageStatus.SENT)
            .map(StoredMessages.Stored::id)
            .toList();
    assertThat(sent).containsExactlyInAnyOrderElementsOf(beforeRestart.keySet());
    assertThat(sent).hasSizeLessThan(total); // the stop came with messages still to deliver

    ConfigurableApplicationContext second = start();
    OutboxAdmin admin = second.getBean(OutboxAdmin.class);
    await().atMost(WAIT).until(() -> admin.pendingCount() == 0);
    assertThat(Listeners.SHIPMENT_CALLS).hasSize(total);
    assertThat(Listeners.SHIPMENT_CALLS.values()).allMatch(calls -> calls == 1);
    assertThat(admin.deadCount()).isZero();
  }

  @Test
  void theHealthTurnsDownWhileAMessageIsStuck() {
    ConfigurableApplicationContext app = start();
    Object indicator = app.getBean("outboxHealthIndicator");
    assertThat(HealthProbe.read(indicator).status()).isEqualTo("UP");
    // No handler of order.audited runs here: the message waits.
    app.getBean(OrderService.class).place("o-1", "customer-1", 1, "order.audited");
    await().atMost(WAIT).until(() -> HealthProbe.read(indicator).status().equals("DOWN"));
    assertThat(HealthProbe.read(indicator).details()).containsEntry("pending", 1L);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theEndpointRequeuesADeadLetter() {
    ConfigurableApplicationContext app = start();
    OutboxAdmin admin = app.getBean(OutboxAdmin.class);
    Listeners.REJECTING.set(true);
    app.getBean(OrderService.class).place("o-1", "customer-1", 1, "order.rejected");
    await().atMost(WAIT).until(() -> admin.deadCount() == 1);

    OutboxEndpoint endpoint = app.getBean(OutboxEndpoint.class);
    List<Map<String, Object>> letters =
        (List<Map<String, Object>>)
            endpoint.deadLetters("dead-letters", null, null, null).get("deadLetters");
    String id = (String) letters.get(0).get("id");
    assertThat((String) letters.get(0).get("lastError")).contains("downstream refuses");

    Listeners.REJECTING.set(false);
    assertThat(endpoint.requeue("dead-letters", id)).containsEntry("requeued", true);
    await().atMost(WAIT).until(() -> admin.deadCount() == 0 && admin.pendingCount() == 0);
    assertThat(admin.stats().sentAwaitingPurge()).isEqualTo(1);
  }

  @Test
  void theBootLineIsTheOneTheBuildChose() {
    assertThat(BootLine.isBoot4()).isEqualTo(Boolean.getBoolean("jooq-outbox.test.boot4"));
  }
}
