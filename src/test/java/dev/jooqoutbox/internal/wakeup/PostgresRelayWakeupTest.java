package dev.jooqoutbox.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL: relays outside the writer's process hear a committed write through the coalesced
 * {@code NOTIFY}, within the documented bound (one notifier interval, the notification's trip and a
 * claim; far below the poll interval), and still after their LISTEN connection was lost. The relays
 * poll every 30 or 60 s: a delivery within seconds came from a wake-up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRelayWakeupTest {

  private static final Duration BOUND = Duration.ofSeconds(5);

  private OwnPostgresDatabase db;
  private DSLContext writers;
  private Outbox outbox;

  @BeforeAll
  void createDatabase() throws Exception {
    db = new OwnPostgresDatabase();
    // The writer's pool has a URL of its own: the relays below are not in-process partners.
    writers =
        DSL.using(
            DSL.using(db.pool("writer", 4), SQLDialect.POSTGRES)
                .configuration()
                .deriveAppending(Outbox.transactionListener()));
    outbox = Outbox.create(writers);
  }

  @AfterAll
  void dropDatabase() throws Exception {
    db.close();
  }

  @Test
  void aRelayInAnotherProcessIsWokenByACommittedWrite() throws Exception {
    try (RelayProcess.Child child = new RelayProcess.Child(db.url("child-relay"))) {
      await().atMost(Duration.ofSeconds(60)).until(() -> listeners("child-relay") == 1);
      // A first message: the child's JVM warms up on it.
      String first = write();
      await().atMost(Duration.ofSeconds(30)).until(() -> child.handledAt(first) != null);

      for (int i = 0; i < 5; i++) {
        String id = write();
        long committed = System.nanoTime();
        await()
            .atMost(BOUND)
            .pollInterval(Duration.ofMillis(2))
            .until(() -> child.handledAt(id) != null);
        long millis = (child.handledAt(id) - committed) / 1_000_000;
        System.out.printf("relay in another process: handler started %d ms after commit%n", millis);
        assertThat(millis).isLessThan(BOUND.toMillis());
      }
    }
  }

  @Test
  void aRelayWhoseListenConnectionWasLostHearsCommitsAgain() throws Exception {
    List<OutboxMessage> handled = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (OutboxRelay relay =
        OutboxRelay.builder(DSL.using(db.pool("relay", 3), SQLDialect.POSTGRES))
            .pollInterval(Duration.ofSeconds(30))
            .meterRegistry(registry)
            .handler("orders", handled::add)
            .build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> listeners("relay") == 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> claims(registry) >= 1);
      long before = claims(registry);

      // The LISTEN connection dies (a restart, a network cut, an administrator).
      assertThat(terminateListeners("relay")).isEqualTo(1);
      // The relay notices and claims once, then reconnects after a second.
      await().atMost(BOUND).until(() -> claims(registry) > before);
      // Written while nobody listens: heard of when the relay listens again, not at its poll.
      String duringOutage = write();
      await().atMost(BOUND).until(() -> handled.size() == 1);
      await().atMost(BOUND).until(() -> listeners("relay") == 1);

      String after = write();
      await().atMost(BOUND).until(() -> handled.size() == 2);
      assertThat(handled).extracting(OutboxMessage::id).containsExactly(duringOutage, after);
    }
  }

  private String write() {
    return writers.transactionResult(tx -> outbox.write(tx.dsl(), "a", "orders", Map.of()));
  }

  private static long claims(SimpleMeterRegistry registry) {
    Timer timer = registry.find("outbox.relay.claim").timer();
    return timer == null ? 0 : timer.count();
  }

  /** The sessions of {@code application} that LISTEN on the outbox's channel now. */
  private int listeners(String application) {
    return writers.fetchCount(listenSessions(application));
  }

  private int terminateListeners(String application) {
    var sessions = listenSessions(application);
    Field<Integer> pid = DSL.field(DSL.name("pid"), Integer.class);
    return writers
        .select(DSL.function("pg_terminate_backend", Boolean.class, pid))
        .from(sessions)
        .fetch()
        .size();
  }

  private org.jooq.SelectConditionStep<?> listenSessions(String application) {
    return DSL.select(DSL.field(DSL.name("pid"), Integer.class))
        .from(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")))
        .where(DSL.field(DSL.name("datname"), String.class).eq(db.name()))
        .and(DSL.field(DSL.name("application_name"), String.class).eq(application))
        .and(DSL.field(DSL.name("query"), String.class).eq("LISTEN " + Outbox.NOTIFY_CHANNEL));
  }
}
