package dev.jooqoutbox.faults;

import ch.qos.logback.classic.Level;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.relay.OutboxRelay;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.slf4j.Logger;

/**
 * A relay in its own JVM, for the process-crash tests: it delivers {@link Faults#BOOKING_TOPIC}
 * messages to the inbox-guarded ledger until it is killed.
 *
 * <p>Arguments: {@code dialect jdbcUrl processName leaseMillis batchSize handlerConcurrency}. Its
 * claim tokens are {@code processName#n}. Prints {@code READY} once the relay runs, so the test
 * kills it while it works, not while it boots.
 */
public final class RelayProcessMain {

  private RelayProcessMain() {}

  public static void main(String[] args) throws InterruptedException {
    Faults.logLevel(Level.WARN, Logger.ROOT_LOGGER_NAME);
    SQLDialect dialect = SQLDialect.valueOf(args[0]);
    String url = args[1];
    String process = args[2];
    Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
    int batchSize = Integer.parseInt(args[4]);
    int handlerConcurrency = Integer.parseInt(args[5]);

    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    // Claim, one connection per handler, the LISTEN connection, and one spare.
    config.setMaximumPoolSize(handlerConcurrency + 3);
    config.setConnectionTimeout(30_000);
    config.setPoolName(process);
    HikariDataSource pool = new HikariDataSource(config);
    DSLContext dsl = DSL.using(pool, dialect, new Settings().withExecuteLogging(false));
    Inbox inbox = new Inbox();
    AtomicBoolean active = new AtomicBoolean();
    AtomicLong claims = new AtomicLong();

    OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler(
                Faults.BOOKING_TOPIC,
                message -> {
                  Faults.book(dsl, inbox, message, process);
                  if (active.compareAndSet(false, true)) {
                    System.out.println("ACTIVE " + process);
                    System.out.flush();
                  }
                })
            .lease(lease)
            .batchSize(batchSize)
            // The window is the crash bound: at most this many claimed messages per kill.
            .maxInFlight(batchSize)
            .handlerConcurrency(handlerConcurrency)
            .pollInterval(Duration.ofMillis(100))
            .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
            // "<process>#<n>": the test finds what a killed process still held by its name.
            .claimTokens(() -> process + "#" + claims.incrementAndGet())
            .build();
    ChildJvm.runUntilShutdown(
        relay, pool, "READY " + process + " pid " + ProcessHandle.current().pid());
  }
}
