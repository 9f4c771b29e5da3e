package dev.jooqoutbox;

import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.sqlite.SQLiteDataSource;

/**
 * What {@link CoreWithoutIntegrationsTest} runs in a JVM whose class path holds the library, its
 * non-optional dependencies and sqlite-jdbc only: migrate, write in a transaction, drain with a
 * relay into an inbox-guarded consumer. Prints OK, or the step that failed, and each integration
 * class it can load (there must be none).
 */
public final class CoreWithoutIntegrationsMain {

  /** One class of each optional integration; none may be on this JVM's class path. */
  static final List<String> INTEGRATION_CLASSES =
      List.of(
          "com.zaxxer.hikari.HikariDataSource",
          "io.micrometer.core.instrument.MeterRegistry",
          "io.opentelemetry.api.OpenTelemetry",
          "io.opentelemetry.context.Context",
          "picocli.CommandLine",
          "ch.qos.logback.classic.Logger",
          "org.springframework.context.ApplicationContext");

  private CoreWithoutIntegrationsMain() {}

  /** {@code args[0]}: the SQLite file to create. */
  public static void main(String[] args) throws Exception {
    for (String name : INTEGRATION_CLASSES) {
      try {
        Class.forName(name);
        System.out.println("LOADABLE " + name);
      } catch (ClassNotFoundException expected) {
        // absent, as it must be
      }
    }
    SQLiteDataSource dataSource = new SQLiteDataSource(); // sqlite-jdbc's own, no pool
    dataSource.setUrl("jdbc:sqlite:" + args[0] + "?journal_mode=WAL&busy_timeout=30000");
    OutboxSchema.migrate(dataSource);

    DSLContext dsl = DSL.using(dataSource, SQLDialect.SQLITE);
    Outbox outbox = Outbox.create(dsl);
    dsl.transaction(tx -> outbox.write(tx.dsl(), "order-1", "order.placed", Map.of("total", 12)));

    Inbox inbox = new Inbox();
    AtomicInteger booked = new AtomicInteger();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler(
                "order.placed",
                message ->
                    inbox.runOnce(dsl, "ledger", message.id(), tx -> booked.incrementAndGet()))
            .pollInterval(Duration.ofMillis(20))
            .build()) {
      relay.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (OutboxAdmin.create(dsl).pendingCount() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    }
    long pending = OutboxAdmin.create(dsl).pendingCount();
    System.out.println(pending == 0 && booked.get() == 1 ? "OK" : "NOT DRAINED " + pending);
  }
}
