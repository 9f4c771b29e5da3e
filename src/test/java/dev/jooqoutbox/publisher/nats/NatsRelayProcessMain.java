package dev.jooqoutbox.publisher.nats;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * A relay publishing to NATS JetStream in its own JVM, for the crash test: it publishes the
 * messages of one topic until it is killed.
 *
 * <p>Arguments: {@code dialect jdbcUrl natsUrl topic leaseMillis}. Prints {@code READY} once the
 * relay runs.
 */
public final class NatsRelayProcessMain {

  private NatsRelayProcessMain() {}

  public static void main(String[] args) throws Exception {
    SQLDialect dialect = SQLDialect.valueOf(args[0]);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[1]);
    config.setMaximumPoolSize(6);
    HikariDataSource pool = new HikariDataSource(config);
    DSLContext dsl = DSL.using(pool, dialect, new Settings().withExecuteLogging(false));
    Connection nats = Nats.connect(args[2]);
    OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .asyncHandler(args[3], NatsPublisher.builder(nats).build())
            .lease(Duration.ofMillis(Long.parseLong(args[4])))
            .listen(false)
            .pollInterval(Duration.ofMillis(20))
            .handlerConcurrency(2)
            .build();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  pool.close();
                  stopped.countDown();
                }));
    relay.start();
    System.out.println("READY pid " + ProcessHandle.current().pid());
    System.out.flush();
    stopped.await();
  }
}
