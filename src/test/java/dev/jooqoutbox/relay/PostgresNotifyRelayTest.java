package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.schema.Tables;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL only: a listening relay wakes when a notifying writer commits, long before its poll.
 *
 * <p>Runs in a database of its own, not a schema of the shared {@code test} database: NOTIFY is per
 * database, and the writes of other tests there would wake the relay and blur what is measured.
 * Both tests first wait until the relay's first poll is done and its LISTEN is in place, so the
 * worker is known to be in its 10 s sleep when the message is written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresNotifyRelayTest {

  private static final Duration LONG_POLL = Duration.ofSeconds(10);

  private final String database =
      "relay_notify_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private HikariDataSource dataSource;
  private DSLContext dsl;
  private OutboxRelay relay;

  @BeforeAll
  void createDatabase() throws SQLException {
    adminExecute("CREATE DATABASE " + database);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(databaseUrl());
    config.setMaximumPoolSize(4);
    config.setPoolName("relay-notify");
    dataSource = new HikariDataSource(config);
    OutboxSchema.migrate(dataSource);
    dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
  }

  @AfterAll
  void dropDatabase() throws SQLException {
    dataSource.close();
    adminExecute("DROP DATABASE " + database + " WITH (FORCE)");
  }

  @BeforeEach
  void emptyTables() {
    dsl.deleteFrom(Tables.OUTBOX_MESSAGE).execute();
  }

  @AfterEach
  void closeRelay() {
    if (relay != null) {
      relay.close();
      relay = null;
    }
  }

  @Test
  void committedMessageWakesTheListeningRelayLongBeforeItsPoll() {
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    startListeningRelay(seen, registry);

    Outbox notifying = Outbox.create(dsl);
    String id = dsl.transactionResult(tx -> notifying.write(tx.dsl(), "a", "orders", Map.of()));
    long committed = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> !seen.isEmpty());
    long millis = (System.nanoTime() - committed) / 1_000_000;
    System.out.printf(
        "NOTIFY: delivered %d ms after commit (poll interval %s)%n", millis, LONG_POLL);

    assertThat(seen).extracting(OutboxMessage::id).containsExactly(id);
    assertThat(millis).isLessThan(2000);
    // No poll-interval poll (10 s) and no spinning: the poll at start; the claim on the first
    // wake-up; the one right after a claim that took something; the one the settle's wake-up makes
    // when that found nothing; and, as writer and relay share this JVM, the second wake-up of the
    // same commit (the in-process one and the NOTIFY, whichever comes later), when it comes after
    // the producer consumed the first. Up to 3 was asserted before 6 December; CI saw 4 once.
    assertThat(claims(registry)).isBetween(2L, 5L);
  }

  @Test
  void withoutNotifyOnWriteTheMessageWaitsForThePoll() {
    List<OutboxMessage> seen = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    startListeningRelay(seen, registry);

    Outbox silent = Outbox.builder(dsl).notifyOnWrite(false).build();
    String quiet = dsl.transactionResult(tx -> silent.write(tx.dsl(), "a", "orders", Map.of()));
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(2))
        .until(() -> seen.isEmpty() && claims(registry) == 1);

    // A notifying write wakes the relay, which then finds both.
    Outbox notifying = Outbox.create(dsl);
    String loud = dsl.transactionResult(tx -> notifying.write(tx.dsl(), "b", "orders", Map.of()));
    await().atMost(Duration.ofSeconds(2)).until(() -> seen.size() == 2);
    assertThat(seen).extracting(OutboxMessage::id).containsExactlyInAnyOrder(quiet, loud);
  }

  @Test
  void closeStopsTheListenThreadBeforeReturning() {
    startListeningRelay(new CopyOnWriteArrayList<>(), new SimpleMeterRegistry());

    relay.close();

    // Returning from close() means the application may close its pool: nothing of the relay may
    // still hold the LISTEN connection.
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .noneMatch(name -> name.startsWith("outbox-listen-"));
  }

  private void startListeningRelay(List<OutboxMessage> seen, SimpleMeterRegistry registry) {
    relay =
        OutboxRelay.builder(dsl)
            .pollInterval(LONG_POLL)
            .meterRegistry(registry)
            .handler("orders", seen::add)
            .build();
    relay.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> claims(registry) == 1 && listening());
  }

  private static long claims(SimpleMeterRegistry registry) {
    Timer timer = registry.find("outbox.relay.claim").timer();
    return timer == null ? 0 : timer.count();
  }

  private boolean listening() {
    return dsl.fetchExists(
        DSL.selectOne()
            .from(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")))
            .where(DSL.field(DSL.name("datname"), String.class).eq(database))
            .and(DSL.field(DSL.name("query"), String.class).eq("LISTEN " + Outbox.NOTIFY_CHANNEL)));
  }

  private String databaseUrl() {
    String server = TestDatabase.Kind.POSTGRES.serverUrl();
    int query = server.indexOf('?');
    String base = query < 0 ? server : server.substring(0, query);
    String params = query < 0 ? "" : server.substring(query);
    return base.substring(0, base.lastIndexOf('/') + 1) + database + params;
  }

  private static void adminExecute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(TestDatabase.Kind.POSTGRES.serverUrl());
        Statement statement = c.createStatement()) {
      // The database name is generated above from a UUID: DDL takes no bind values.
      statement.execute(sql);
    }
  }
}
