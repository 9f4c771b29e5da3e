package dev.jooqoutbox.faults;

import ch.qos.logback.classic.Level;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;

/**
 * A relay as its own process, written as docs/guide.md "A relay as its own process" shows: start,
 * {@code closeOnShutdown(pool)}, {@code awaitClosed()}. Books {@link Faults#BOOKING_TOPIC} messages
 * a few milliseconds each, so a SIGTERM finds handlers running and messages claimed.
 *
 * <p>Arguments: {@code dialect jdbcUrl}. Prints {@code ACTIVE} at its first booking.
 */
public final class WorkerProcessMain {

  private WorkerProcessMain() {}

  public static void main(String[] args) throws InterruptedException {
    Faults.logLevel(Level.WARN, Logger.ROOT_LOGGER_NAME);
    SQLDialect dialect = SQLDialect.valueOf(args[0]);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[1]);
    config.setMaximumPoolSize(8);
    HikariDataSource pool = new HikariDataSource(config);
    DSLContext dsl = DSL.using(pool, dialect);
    Inbox inbox = new Inbox();
    AtomicBoolean active = new AtomicBoolean();

    OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler(
                Faults.BOOKING_TOPIC,
                message -> {
                  Faults.book(dsl, inbox, message, "worker");
                  if (active.compareAndSet(false, true)) {
                    System.out.println("ACTIVE");
                    System.out.flush();
                  }
                  Thread.sleep(3); // a handler that takes a moment: some are running at SIGTERM
                })
            .handlerConcurrency(2)
            .pollInterval(Duration.ofMillis(100))
            .build();
    relay.closeOnShutdown(pool);
    relay.start();
    relay.awaitClosed();
  }
}
