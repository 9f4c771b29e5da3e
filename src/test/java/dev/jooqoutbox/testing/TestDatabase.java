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
 * <p>The PostgreSQL and MariaDB servers are found on first use, once per JVM: the server named by
 * {@code OUTBOX_TEST_POSTGRES_URL} / {@code OUTBOX_TEST_MARIADB_URL}, else one answering on the
 * default port, else a real server the tests start from Maven artifacts ({@link ServerResolver}).
 * When none can be had the test fails saying what was tried; it never skips.
 */
public final class TestDatabase implements AutoCloseable {

  /** The dialects every behaviour is tested on. */
  public enum Kind {
    POSTGRES(SQLDialect.POSTGRES),
    MARIADB(SQLDialect.MARIADB),
    SQLITE(SQLDialect.SQLITE);

    final SQLDialect dialect;

    Kind(SQLDialect dialect) {
      this.dialect = dialect;
    }

    /**
     * The URL of the server the tests of this dialect use, with its user and the {@code test}
     * database; finds or starts the server on first use. Not for SQLite, whose databases are files.
     */
    public String serverUrl() {
      if (this == SQLITE) {
        throw new IllegalStateException("SQLite has no server: each TestDatabase is a file");
      }
      return TestServers.of(this).url();
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
          TestServers.of(kind); // announces the SQLite version once
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

  /** The schema (PostgreSQL) or database (MariaDB) name; a label only on SQLite. */
  public String name() {
    return name;
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
    dsl.deleteFrom(Tables.OUTBOX_PAUSED_TOPIC).execute();
    if (kind == Kind.POSTGRES) {
      // The event log (changeset 009): no message, no relay, every shard unread.
      dsl.truncate(Tables.OUTBOX_EVENT).execute();
      dsl.deleteFrom(Tables.OUTBOX_EVENT_KEY).execute();
      dsl.deleteFrom(Tables.OUTBOX_RELAY).execute();
      dsl.update(Tables.OUTBOX_SHARD)
          .set(Tables.OUTBOX_SHARD.RELAY_ID, (String) null)
          .set(Tables.OUTBOX_SHARD.LEASE_UNTIL, (java.time.Instant) null)
          .set(Tables.OUTBOX_SHARD.LOWER_SNAPSHOT, "1:1:")
          .set(Tables.OUTBOX_SHARD.UPPER_SNAPSHOT, (String) null)
          .set(Tables.OUTBOX_SHARD.AFTER_TXID, (Long) null)
          .set(Tables.OUTBOX_SHARD.AFTER_SEQ, (Long) null)
          .set(Tables.OUTBOX_SHARD.READ_MARK, (Long) null)
          .execute();
    }
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
          "Cannot run '"
              + ddl
              + "' on the test server, "
              + TestServers.of(kind).describe()
              + ": "
              + e.getMessage(),
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
