package dev.jooqoutbox.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A relay in the writer's JVM is woken in process right after the writer's transaction commits,
 * long before its poll, on every database (not only PostgreSQL, and without LISTEN); a rolled-back
 * write does not wake it. The relay polls every 30 s and its first poll is done before the write.
 */
abstract class RelayWakeupContract extends DatabaseFixture {

  private static final Duration LONG_POLL = Duration.ofSeconds(30);

  private DSLContext app;
  private Outbox outbox;
  private OutboxRelay relay;
  private final List<OutboxMessage> handled = new CopyOnWriteArrayList<>();
  private SimpleMeterRegistry registry;

  RelayWakeupContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    app = DSL.using(db.dsl().configuration().deriveAppending(Outbox.transactionListener()));
    outbox = Outbox.create(app);
  }

  @BeforeEach
  void setUp() {
    handled.clear();
    registry = new SimpleMeterRegistry();
    relay =
        OutboxRelay.builder(db.dsl())
            .pollInterval(LONG_POLL)
            .listen(false) // only the in-process path can wake it
            .meterRegistry(registry)
            .handler("orders", handled::add)
            .build();
    relay.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> claims() == 1);
  }

  @AfterEach
  void closeRelay() {
    relay.close();
  }

  @Test
  void aCommittedWriteWakesARelayOfThisJvmLongBeforeItsPoll() {
    long[] committing = new long[1];
    String id =
        app.transactionResult(
            tx -> {
              String written = outbox.write(tx.dsl(), "a", "orders", Map.of());
              committing[0] = System.nanoTime();
              return written;
            });

    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(2))
        .until(() -> !handled.isEmpty());
    long millis = (System.nanoTime() - committing[0]) / 1_000_000;
    System.out.printf("%s in-process wake-up: handled %d ms after the commit%n", kind, millis);
    assertThat(handled).extracting(OutboxMessage::id).containsExactly(id);
    // The poll at start, the claim on the wake-up, at most one more that finds nothing.
    assertThat(claims()).isBetween(2L, 3L);
  }

  @Test
  void aRolledBackWriteDoesNotWakeTheRelay() {
    assertThatThrownBy(
            () ->
                app.transaction(
                    tx -> {
                      outbox.write(tx.dsl(), "a", "orders", Map.of());
                      throw new IllegalStateException("rolled back");
                    }))
        .hasMessageContaining("rolled back");

    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> claims() == 1);
    assertThat(handled).isEmpty();
  }

  private long claims() {
    Timer timer = registry.find("outbox.relay.claim").timer();
    return timer == null ? 0 : timer.count();
  }
}
