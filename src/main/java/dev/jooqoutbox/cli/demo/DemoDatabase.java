package dev.jooqoutbox.cli.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.internal.cli.ConnectFailures;
import dev.jooqoutbox.internal.cli.JdbcUrls;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The demo's database: a Hikari pool big enough for the writers, the relays and their handlers,
 * opened from a JDBC URL. The operator commands' {@code CliDatabase} keeps a two-connection pool
 * and is package-private to {@code dev.jooqoutbox.cli}, hence this small sibling.
 *
 * @param displayUrl the URL as given, password masked
 * @param dsl on {@code dataSource}
 */
record DemoDatabase(String displayUrl, HikariDataSource dataSource, DSLContext dsl)
    implements AutoCloseable {

  /** The embedded default, relative to the working directory. */
  static final String DEFAULT_URL = "jdbc:sqlite:outbox-demo.db";

  private static final String SQLITE = "jdbc:sqlite:";

  /**
   * Opens {@code url} with a pool of {@code poolSize} connections; a SQLite file that does not
   * exist yet is created.
   *
   * @throws DemoException for an unsupported URL or a database that cannot be reached
   */
  static DemoDatabase open(String url, int poolSize) {
    String display = JdbcUrls.redact(url);
    SQLDialect dialect;
    try {
      dialect = JdbcUrls.dialect(url);
    } catch (IllegalArgumentException unsupported) {
      throw new DemoException(unsupported.getMessage());
    }
    if (url.startsWith(SQLITE) && JdbcUrls.sqliteFile(url) == null) {
      throw new DemoException(
          "the demo needs a SQLite file that all its connections share, not " + display);
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(effectiveUrl(url));
    config.setPoolName("outbox-demo");
    config.setMaximumPoolSize(poolSize);
    config.setConnectionTimeout(30_000);
    try {
      HikariDataSource pool = new HikariDataSource(config);
      // Per-statement debug logging would cost more than the demo's statements themselves.
      Settings quiet = new Settings().withExecuteLogging(false);
      return new DemoDatabase(display, pool, DSL.using(pool, dialect, quiet));
    } catch (RuntimeException e) {
      throw new DemoException(
          "cannot connect to " + display + ": " + ConnectFailures.describe(e), e);
    }
  }

  @Override
  public void close() {
    dataSource.close();
  }

  /** The URL handed to the driver: the CLI's, plus what the demo's many writers need. */
  static String effectiveUrl(String url) {
    String u = JdbcUrls.effectiveUrl(url);
    // NORMAL synchronous is WAL's usual pairing: durable across a crash of the process.
    return url.startsWith(SQLITE) ? JdbcUrls.withParamIfAbsent(u, "synchronous", "NORMAL") : u;
  }
}
