package dev.jooqoutbox.faults;

import ch.qos.logback.classic.Level;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutcomeUnknownException;
import java.time.Duration;
import java.util.Locale;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.slf4j.Logger;

/**
 * A relay in its own JVM whose handler reports every message's outcome unknown, and which dies the
 * moment its completer starts the statement that would record it: the process halts (exit code
 * {@value #HALTED}, like SIGKILL) before that statement reaches the database. That is a relay
 * killed between the handler's "unknown" and its settle.
 *
 * <p>Arguments: {@code dialect jdbcUrl leaseMillis topic}. Prints {@code UNKNOWN <id> attempt <n>}
 * from the handler and {@code HALT} just before halting.
 */
public final class UnknownThenKilledMain {

  static final int HALTED = 137;

  private UnknownThenKilledMain() {}

  public static void main(String[] args) throws InterruptedException {
    Faults.logLevel(Level.WARN, Logger.ROOT_LOGGER_NAME);
    SQLDialect dialect = SQLDialect.valueOf(args[0]);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[1]);
    config.setMaximumPoolSize(4);
    HikariDataSource pool = new HikariDataSource(config);
    DSLContext dsl =
        DSL.using(
            new DefaultConfiguration()
                .set(pool)
                .set(dialect)
                .set(new Settings().withExecuteLogging(false))
                .set(new DefaultExecuteListenerProvider(new HaltAtTheUnknownSettle())));
    OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .lease(Duration.ofMillis(Long.parseLong(args[2])))
            .pollInterval(Duration.ofMillis(50))
            .listen(false)
            .handler(
                args[3],
                message -> {
                  System.out.println("UNKNOWN " + message.id() + " attempt " + message.attempt());
                  System.out.flush();
                  throw new OutcomeUnknownException("no answer from the remote", "ref-1", null);
                })
            .build();
    relay.start();
    Thread.sleep(60_000); // the halt ends it long before
    System.out.println("NEVER HALTED");
    System.exit(1);
  }

  /**
   * Halts when the statement that stores a remote reference (the unknown outcome's settle) starts:
   * an update of its row, or on PostgreSQL's event log the insert that copies the message to
   * outbox_message with its unknown outcome (a message of the log has no row to update). A copy of
   * another message (one given back behind it) halts it too: either way the process dies before any
   * copy, the unknown outcome's included, is stored, as a relay killed at that settle.
   */
  private static final class HaltAtTheUnknownSettle implements ExecuteListener {
    private static final long serialVersionUID = 1L;

    @Override
    public void executeStart(ExecuteContext ctx) {
      String sql = ctx.sql() == null ? "" : ctx.sql().toLowerCase(Locale.ROOT);
      boolean update = sql.startsWith("update") && sql.contains("remote_ref");
      boolean copy =
          sql.startsWith("insert into")
              && sql.contains("outbox_message")
              && sql.contains("remote_ref");
      if (update || copy) {
        System.out.println("HALT");
        System.out.flush();
        Runtime.getRuntime().halt(HALTED);
      }
    }
  }
}
