package dev.jooqoutbox.internal.wakeup;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A PostgreSQL database of its own, not a schema of the shared {@code test} database: {@code
 * NOTIFY} reaches every listener of a database, and other tests' writes there would blur what is
 * counted. Migrated; pools on it by URL; a listener that counts the notifications it hears.
 */
final class OwnPostgresDatabase implements AutoCloseable {

  private final String name =
      "wakeup_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private final List<HikariDataSource> pools = new ArrayList<>();

  OwnPostgresDatabase() throws SQLException {
    admin("CREATE DATABASE " + name);
    try (HikariDataSource migrator = pool("migrate", 1)) {
      OutboxSchema.migrate(migrator);
    }
  }

  String name() {
    return name;
  }

  /**
   * The database's URL; {@code application} names the connections, which also makes the URL (and so
   * the database as {@link Wakeups} names it) differ between pools, like another process.
   */
  String url(String application) {
    String server = TestDatabase.Kind.POSTGRES.serverUrl();
    int query = server.indexOf('?');
    String base = query < 0 ? server : server.substring(0, query);
    String params = query < 0 ? "?" : server.substring(query) + "&";
    return base.substring(0, base.lastIndexOf('/') + 1)
        + name
        + params
        + "ApplicationName="
        + application;
  }

  HikariDataSource pool(String application, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url(application));
    config.setMaximumPoolSize(size);
    config.setPoolName(name + "-" + application);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  /** A connection that LISTENs on the outbox's channel, for {@link #notifications}. */
  Connection listen() throws SQLException {
    Connection connection = DriverManager.getConnection(url("listener"));
    try (Statement statement = connection.createStatement()) {
      statement.execute("LISTEN jooq_outbox");
    }
    return connection;
  }

  /** The notifications {@code listener} hears within {@code wait}, or until one is heard. */
  static List<PGNotification> notifications(Connection listener, Duration wait, boolean firstOnly)
      throws SQLException {
    List<PGNotification> heard = new ArrayList<>();
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline && !(firstOnly && !heard.isEmpty())) {
      int millis = (int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      PGNotification[] batch = listener.unwrap(PGConnection.class).getNotifications(millis);
      if (batch != null) {
        heard.addAll(List.of(batch));
      }
    }
    return heard;
  }

  @Override
  public void close() throws SQLException {
    pools.forEach(HikariDataSource::close);
    admin("DROP DATABASE " + name + " WITH (FORCE)");
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(TestDatabase.Kind.POSTGRES.serverUrl());
        Statement statement = c.createStatement()) {
      // The database name is generated above from a UUID: DDL takes no bind values.
      statement.execute(sql);
    }
  }
}
