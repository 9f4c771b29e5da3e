package dev.jooqoutbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.schema.Tables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * An isolated database of one dialect for one test class: a fresh schema on PostgreSQL, a fresh
 * database on MariaDB, a fresh file on SQLite. Closing it drops what it created.
 *
 * <p>Server URLs come from {@code OUTBOX_TEST_POSTGRES_URL} and {@code OUTBOX_TEST_MARIADB_URL}. An
 * unreachable server fails the test with the URL and how to start it; it never skips.
 */
public final class TestDatabase implements AutoCloseable {

  /** The dialects every behaviour is tested on. */
  public enum Kind {
    POSTGRES(
        SQLDialect.POSTGRES,
        "OUTBOX_TEST_POSTGRES_URL",
        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
        "start it with: pg_ctlcluster --skip-systemctl-redirect 15 main start (or bash .ci/run)"),
    MARIADB(
        SQLDialect.MARIADB,
        "OUTBOX_TEST_MARIADB_URL",
        "jdbc:mariadb://127.0.0.1:3306/test?user=root",
        "start it with: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd"
            + " (or bash .ci/run)"),
    SQLITE(SQLDialect.SQLITE, null, null, null);

    final SQLDialect dialect;
    final String env;
    final String defaultUrl;
    final String howToStart;

    Kind(SQLDialect dialect, String env, String defaultUrl, String howToStart) {
      this.dialect = dialect;
      this.env = env;
      this.defaultUrl = defaultUrl;
      this.howToStart = howToStart;
    }

    /** The server URL tests use for this dialect (not for SQLite). */
    public String serverUrl() {
      String fromEnv = env == null ? null : System.getenv(env);
      return fromEnv == null || fromEnv.isBlank() ? defaultUrl : fromEnv;
    }
  }

  private final Kind kind;
  private final String name;
  private final String url;
  private final Path sqliteDir;
  private final HikariDataSource dataSource;
  private final DSLContext dsl;

  private TestDatabase(Kind kind, String name, String url, Path sqliteDir, int poolSize) {
    this.kind = kind;
    this.name = name;
    this.url = url;
    this.sqliteDir = sqliteDir;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("test-" + kind.name().toLowerCase(Locale.ROOT) + "-" + name);
    config.setConnectionTimeout(10_000);
    this.dataSource = new HikariDataSource(config);
    this.dsl = DSL.using(dataSource, kind.dialect);
  }

  /** A new, empty (unmigrated) database. */
  public static TestDatabase empty(Kind kind) {
    return empty(kind, 8);
  }

  /** A new, empty database with a pool of {@code poolSize} connections. */
  public static TestDatabase empty(Kind kind, int poolSize) {
    String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    switch (kind) {
      case POSTGRES:
        {
          String server = kind.serverUrl();
          adminExecute(kind, server, "CREATE SCHEMA " + name);
          return new TestDatabase(
              kind, name, withParam(server, "currentSchema", name), null, poolSize);
        }
      case MARIADB:
        {
          String server = kind.serverUrl();
          adminExecute(kind, server, "CREATE DATABASE " + name);
          return new TestDatabase(kind, name, withDatabase(server, name), null, poolSize);
        }
      case SQLITE:
        {
          try {
            Path dir = Files.createTempDirectory("outbox-test-");
            String url =
                "jdbc:sqlite:" + dir.resolve("outbox.db") + "?journal_mode=WAL&busy_timeout=30000";
            return new TestDatabase(kind, name, url, dir, poolSize);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      default:
        throw new IllegalArgumentException(kind.name());
    }
  }

  /** A new database with the outbox changelog applied. */
  public static TestDatabase migrated(Kind kind) {
    TestDatabase db = empty(kind);
    db.migrate();
    return db;
  }

  public Kind kind() {
    return kind;
  }

  public SQLDialect dialect() {
    return kind.dialect;
  }

  /** The JDBC URL of this isolated database, for a second pool or another process. */
  public String url() {
    return url;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public DSLContext dsl() {
    return dsl;
  }

  public void migrate() {
    OutboxSchema.migrate(dataSource);
  }

  /** Empties the outbox and inbox between tests. */
  public void truncate() {
    dsl.deleteFrom(Tables.OUTBOX_MESSAGE).execute();
    dsl.deleteFrom(Tables.INBOX_MESSAGE).execute();
  }

  @Override
  public void close() {
    dataSource.close();
    switch (kind) {
      case POSTGRES -> adminExecute(kind, kind.serverUrl(), "DROP SCHEMA " + name + " CASCADE");
      case MARIADB -> adminExecute(kind, kind.serverUrl(), "DROP DATABASE " + name);
      case SQLITE -> deleteRecursively(sqliteDir);
    }
  }

  private static void adminExecute(Kind kind, String serverUrl, String ddl) {
    try (Connection c = DriverManager.getConnection(serverUrl)) {
      // The name is generated above from a UUID, never from input: DDL cannot take bind values.
      c.createStatement().execute(ddl);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Cannot use the "
              + kind
              + " test server at "
              + serverUrl
              + " ("
              + e.getMessage()
              + "). Set "
              + kind.env
              + " to a reachable server, or "
              + kind.howToStart,
          e);
    }
  }

  private static String withParam(String url, String key, String value) {
    return url + (url.contains("?") ? "&" : "?") + key + "=" + value;
  }

  /** Replaces the database segment of a {@code jdbc:mariadb://host:port/db?params} URL. */
  private static String withDatabase(String url, String database) {
    int query = url.indexOf('?');
    String base = query < 0 ? url : url.substring(0, query);
    String params = query < 0 ? "" : url.substring(query);
    int slash = base.indexOf('/', "jdbc:mariadb://".length());
    String hostPart = slash < 0 ? base : base.substring(0, slash);
    return hostPart + "/" + database + params;
  }

  private static void deleteRecursively(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
