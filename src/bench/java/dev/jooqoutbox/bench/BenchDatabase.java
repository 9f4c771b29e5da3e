package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * One isolated database for one benchmark run: a fresh schema on PostgreSQL, a fresh database on
 * MariaDB, a fresh file on SQLite, with the outbox changelog applied and a small business table.
 * Closing it drops what it created and nothing else.
 *
 * <p>Bulk loading is plain SQL on purpose: the figures measure draining and claiming, and writing
 * 100,000 or 1,000,000 rows through {@code Outbox.write} would spend most of the benchmark's time
 * in the load. The rows are the same as {@code Outbox.write} writes (same columns, a JSON payload
 * of the same shape, no headers).
 */
final class BenchDatabase implements AutoCloseable {

  /** The supported servers, named as in the results file. */
  enum Kind {
    POSTGRESQL(SQLDialect.POSTGRES),
    MARIADB(SQLDialect.MARIADB),
    SQLITE(SQLDialect.SQLITE);

    final SQLDialect dialect;

    Kind(SQLDialect dialect) {
      this.dialect = dialect;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Kind of(String url) {
      if (url.startsWith("jdbc:postgresql:")) {
        return POSTGRESQL;
      }
      if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
        return MARIADB;
      }
      if (url.startsWith("jdbc:sqlite:")) {
        return SQLITE;
      }
      throw new IllegalArgumentException(
          "--db must be a jdbc:postgresql:, jdbc:mariadb: or jdbc:sqlite: URL, was " + url);
    }
  }

  static final String TOPIC = "bench.order";

  /** Every database not yet closed, so a shutdown hook can drop them after Ctrl-C. */
  private static final Set<BenchDatabase> OPEN = ConcurrentHashMap.newKeySet();

  private final Kind kind;
  private final String serverUrl;
  private final String name;
  private final String url;
  private final Path sqliteDir;
  private final List<HikariDataSource> pools = new ArrayList<>();

  private BenchDatabase(Kind kind, String serverUrl, String name, String url, Path sqliteDir) {
    this.kind = kind;
    this.serverUrl = serverUrl;
    this.name = name;
    this.url = url;
    this.sqliteDir = sqliteDir;
  }

  /** Creates a new, migrated, isolated database on the server of {@code serverUrl}. */
  static BenchDatabase create(String serverUrl) {
    Kind kind = Kind.of(serverUrl);
    String name = "bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    BenchDatabase db;
    switch (kind) {
      case POSTGRESQL -> {
        admin(serverUrl, "CREATE SCHEMA " + name);
        db =
            new BenchDatabase(
                kind, serverUrl, name, withParam(serverUrl, "currentSchema", name), null);
      }
      case MARIADB -> {
        admin(serverUrl, "CREATE DATABASE " + name);
        db = new BenchDatabase(kind, serverUrl, name, withDatabase(serverUrl, name), null);
      }
      case SQLITE -> {
        try {
          Path dir = Files.createTempDirectory("outbox-bench-");
          String url =
              "jdbc:sqlite:" + dir.resolve("bench.db") + "?journal_mode=WAL&busy_timeout=60000";
          db = new BenchDatabase(kind, serverUrl, name, url, dir);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      default -> throw new IllegalArgumentException(kind.name());
    }
    OPEN.add(db);
    try {
      db.migrate();
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
    return db;
  }

  Kind kind() {
    return kind;
  }

  SQLDialect dialect() {
    return kind.dialect;
  }

  /** The JDBC URL of this isolated database, for a pool or a child process. */
  String url() {
    return url;
  }

  /** A new connection pool of {@code size}, closed with this database. */
  HikariDataSource pool(int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setPoolName(name + "-" + pools.size());
    config.setConnectionTimeout(60_000);
    HikariDataSource ds = new HikariDataSource(config);
    pools.add(ds);
    return ds;
  }

  DSLContext dsl(DataSource ds) {
    return DSL.using(ds, kind.dialect);
  }

  private void migrate() {
    try (HikariDataSource ds = singlePool()) {
      OutboxSchema.migrate(ds);
      execute(ds, businessTableDdl());
    }
  }

  private HikariDataSource singlePool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(1);
    config.setPoolName(name + "-admin");
    return new HikariDataSource(config);
  }

  private String businessTableDdl() {
    return switch (kind) {
      case POSTGRESQL ->
          "CREATE TABLE bench_order (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
              + " customer TEXT NOT NULL, amount NUMERIC(12,2) NOT NULL, created_at BIGINT NOT NULL)";
      case MARIADB ->
          "CREATE TABLE bench_order (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
              + " customer VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL,"
              + " created_at BIGINT NOT NULL) ENGINE=InnoDB";
      case SQLITE ->
          "CREATE TABLE bench_order (id INTEGER PRIMARY KEY AUTOINCREMENT,"
              + " customer TEXT NOT NULL, amount NUMERIC NOT NULL, created_at BIGINT NOT NULL)";
    };
  }

  /** Empties the outbox, the inbox, the business table and gruelbox's table if it exists. */
  void truncate() {
    List<String> tables =
        new ArrayList<>(List.of("outbox_message", "inbox_message", "bench_order"));
    if (tableExists("txno_outbox")) {
      tables.add("txno_outbox");
    }
    if (kind == Kind.POSTGRESQL) {
      // The event log (changeset 009): no message, no relay, every shard unread.
      tables.addAll(List.of("outbox_event", "outbox_event_key", "outbox_relay"));
      execute(
          "UPDATE outbox_shard SET relay_id = NULL, lease_until = NULL, lower_snapshot = '1:1:',"
              + " upper_snapshot = NULL, after_txid = NULL, after_seq = NULL, read_mark = NULL");
    }
    switch (kind) {
      case POSTGRESQL -> execute("TRUNCATE " + String.join(", ", tables));
      case MARIADB -> tables.forEach(t -> execute("TRUNCATE TABLE " + t));
      case SQLITE -> tables.forEach(t -> execute("DELETE FROM " + t));
    }
  }

  boolean tableExists(String table) {
    try (Connection c = DriverManager.getConnection(url);
        ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), "%", null)) {
      while (rs.next()) {
        if (rs.getString("TABLE_NAME").equalsIgnoreCase(table)) {
          return true;
        }
      }
      return false;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list tables: " + e.getMessage(), e);
    }
  }

  /**
   * Appends {@code count} messages in {@code seq} order, message {@code n} on aggregate {@code
   * order-(n mod aggregates)}, so the aggregates interleave. Sent rows get a {@code sent_at} an
   * hour ago; the others are pending and available since two minutes ago.
   */
  void loadMessages(int count, int aggregates, boolean sent, String tag) {
    if (count == 0) {
      return;
    }
    long now = System.currentTimeMillis();
    long created = now - 120_000;
    String sentAt = sent ? Long.toString(now - 3_600_000) : "NULL";
    String sql =
        switch (kind) {
          case POSTGRESQL ->
              "INSERT INTO outbox_message (id, aggregate, topic, payload, created_at, available_at,"
                  + " attempts, sent_at) SELECT ? || '-' || n, 'order-' || (n % ?), ?,"
                  + " jsonb_build_object('orderId', n, 'customer', 'c-' || (n % 1000),"
                  + " 'amount', '12.50', 'note', 'benchmark payload'), ?, ?, 0, "
                  + sentAt
                  + " FROM generate_series(1, ?) AS n ORDER BY n";
          case MARIADB ->
              // The SEQUENCE engine's seq_1_to_N table; N is a number we computed, not input.
              "INSERT INTO outbox_message (id, aggregate, topic, payload, created_at, available_at,"
                  + " attempts, sent_at) SELECT CONCAT(?, '-', seq), CONCAT('order-', seq % ?), ?,"
                  + " JSON_OBJECT('orderId', seq, 'customer', CONCAT('c-', seq % 1000),"
                  + " 'amount', '12.50', 'note', 'benchmark payload'), ?, ?, 0, "
                  + sentAt
                  + " FROM seq_1_to_"
                  + count
                  + " ORDER BY seq";
          case SQLITE ->
              "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?)"
                  + " INSERT INTO outbox_message (id, aggregate, topic, payload, created_at,"
                  + " available_at, attempts, sent_at) SELECT ? || '-' || n, 'order-' || (n % ?),"
                  + " ?, json_object('orderId', n, 'customer', 'c-' || (n % 1000),"
                  + " 'amount', '12.50', 'note', 'benchmark payload'), ?, ?, 0, "
                  + sentAt
                  + " FROM s ORDER BY n";
        };
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      if (kind == Kind.SQLITE) {
        ps.setInt(i++, count);
      }
      ps.setString(i++, tag);
      ps.setInt(i++, aggregates);
      ps.setString(i++, TOPIC);
      ps.setLong(i++, created);
      ps.setLong(i++, created);
      if (kind == Kind.POSTGRESQL) {
        ps.setInt(i, count);
      }
      int rows = ps.executeUpdate();
      if (rows != count) {
        throw new IllegalStateException("loaded " + rows + " rows, wanted " + count);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bulk load failed: " + e.getMessage(), e);
    }
  }

  /**
   * PostgreSQL: appends {@code count} messages to the event log as {@code Outbox.write} does (each
   * message's key first, then the message with the seq and transaction id the key drew; the shard
   * of each aggregate from {@code EventShards}), message {@code n} on aggregate {@code order-(n mod
   * aggregates)}, in transactions of {@code perTransaction}.
   */
  void loadLog(int count, int aggregates, String tag, int perTransaction) {
    Short[] shards = new Short[aggregates];
    for (int a = 0; a < aggregates; a++) {
      shards[a] = dev.jooqoutbox.internal.eventlog.EventShards.of("order-" + a);
    }
    long created = System.currentTimeMillis() - 120_000;
    String sql =
        "WITH k AS (INSERT INTO outbox_event_key (id, shard, created_at)"
            + " SELECT ? || '-' || n, (?::smallint[])[(n % ?) + 1], ?"
            + " FROM generate_series(?::int, ?::int) AS n ORDER BY n RETURNING id, seq, txid, shard)"
            + " INSERT INTO outbox_event (seq, txid, shard, id, aggregate, topic, payload,"
            + " created_at, available_at)"
            + " SELECT k.seq, k.txid, k.shard, k.id,"
            + " 'order-' || (split_part(k.id, '-', 2)::int % ?), ?,"
            + " jsonb_build_object('orderId', split_part(k.id, '-', 2)::int, 'customer', 'c-' ||"
            + " (split_part(k.id, '-', 2)::int % 1000), 'amount', '12.50', 'note', 'benchmark"
            + " payload'), ?, ? FROM k ORDER BY k.seq";
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int from = 1; from <= count; from += perTransaction) {
        int to = Math.min(count, from + perTransaction - 1);
        ps.setString(1, tag);
        ps.setArray(2, c.createArrayOf("smallint", shards));
        ps.setInt(3, aggregates);
        ps.setLong(4, created);
        ps.setInt(5, from);
        ps.setInt(6, to);
        ps.setInt(7, aggregates);
        ps.setString(8, TOPIC);
        ps.setLong(9, created);
        ps.setLong(10, created);
        ps.executeUpdate();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("log load failed: " + e.getMessage(), e);
    }
  }

  /**
   * Refreshes statistics and the visibility map, as autovacuum would soon after a bulk load. The
   * PostgreSQL server of this machine runs with {@code autovacuum = off}, so without this the
   * planner would see a freshly truncated, empty table.
   */
  void analyze(String... tables) {
    for (String table : tables) {
      switch (kind) {
        case POSTGRESQL -> execute("VACUUM ANALYZE " + table);
        case MARIADB -> execute("ANALYZE TABLE " + table);
        case SQLITE -> execute("ANALYZE " + table);
      }
    }
  }

  /** Counts pending (not sent, not dead) messages. */
  long pendingCount() {
    return queryLong(
        "SELECT COUNT(*) FROM outbox_message WHERE sent_at IS NULL AND dead_at IS NULL");
  }

  /** The first column of every row of {@code sql} (a query of ours, never input). */
  List<String> queryStrings(String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> values = new ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  long queryLong(String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** Runs one statement on a fresh autocommit connection. */
  void execute(String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private static void execute(DataSource ds, String sql) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** The server's version string. */
  String serverVersion() {
    String sql =
        switch (kind) {
          case POSTGRESQL -> "SELECT version()";
          case MARIADB -> "SELECT VERSION()";
          case SQLITE -> "SELECT 'SQLite ' || sqlite_version()";
        };
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** The server settings that bear on the figures. */
  Map<String, String> settings() {
    Map<String, String> settings = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      switch (kind) {
        case POSTGRESQL -> {
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT name, setting || COALESCE(' ' || unit, '') FROM pg_settings WHERE name IN"
                      + " ('shared_buffers', 'synchronous_commit', 'fsync', 'wal_level',"
                      + " 'autovacuum', 'work_mem', 'effective_cache_size', 'max_wal_size',"
                      + " 'random_page_cost', 'max_connections', 'commit_delay')"
                      + " ORDER BY name")) {
            while (rs.next()) {
              settings.put(rs.getString(1), rs.getString(2));
            }
          }
        }
        case MARIADB -> {
          try (ResultSet rs =
              s.executeQuery(
                  "SHOW VARIABLES WHERE Variable_name IN ('innodb_buffer_pool_size',"
                      + " 'innodb_flush_log_at_trx_commit', 'sync_binlog', 'log_bin',"
                      + " 'innodb_flush_method', 'transaction_isolation', 'max_connections')")) {
            while (rs.next()) {
              settings.put(rs.getString(1), rs.getString(2));
            }
          }
        }
        case SQLITE -> {
          for (String pragma : List.of("journal_mode", "synchronous", "page_size")) {
            try (ResultSet rs = s.executeQuery("PRAGMA " + pragma)) {
              rs.next();
              settings.put(pragma, rs.getString(1));
            }
          }
          settings.put("busy_timeout", "60000 ms (URL)");
        }
      }
    } catch (SQLException e) {
      settings.put("error", e.getMessage());
    }
    return settings;
  }

  /** Closes (drops) every database still open; for the shutdown hook. */
  static void closeAll() {
    for (BenchDatabase db : List.copyOf(OPEN)) {
      try {
        db.close();
      } catch (RuntimeException e) {
        System.err.println("could not drop " + db.name + ": " + e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    if (!OPEN.remove(this)) {
      return;
    }
    for (HikariDataSource ds : pools) {
      ds.close();
    }
    pools.clear();
    switch (kind) {
      case POSTGRESQL -> admin(serverUrl, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
      case MARIADB -> admin(serverUrl, "DROP DATABASE IF EXISTS " + name);
      case SQLITE -> deleteRecursively(sqliteDir);
    }
  }

  private static void admin(String serverUrl, String ddl) {
    try (Connection c = DriverManager.getConnection(serverUrl);
        Statement s = c.createStatement()) {
      // The name is generated from a UUID, never from input: DDL cannot take bind values.
      s.execute(ddl);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot run '" + ddl + "' on " + serverUrl + ": " + e.getMessage(), e);
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
    int slash = base.indexOf('/', base.indexOf("//") + 2);
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
