package dev.jooqoutbox.cli.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.tools.jdbc.JDBCUtils;

/**
 * The demo's database: a Hikari pool big enough for the writers, the relays and their handlers,
 * opened from a JDBC URL. The operator commands' {@code CliDatabase} keeps a two-connection pool
 * and is package-private to {@code dev.jooqoutbox.cli}, hence this small sibling.
 */
final class DemoDatabase implements AutoCloseable {

  /** The embedded default, relative to the working directory. */
  static final String DEFAULT_URL = "jdbc:sqlite:outbox-demo.db";

  private static final String SQLITE = "jdbc:sqlite:";
  private static final List<String> SUPPORTED_PREFIXES =
      List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", SQLITE);
  private static final Pattern PASSWORD_PARAM =
      Pattern.compile("(?i)\\b(password|pwd|sslpassword)=[^&;]*");
  private static final Pattern USER_INFO_PASSWORD = Pattern.compile("//([^/:@]+):[^/@]*@");

  private final String displayUrl;
  private final SQLDialect dialect;
  private final HikariDataSource dataSource;
  private final DSLContext dsl;

  private DemoDatabase(String displayUrl, SQLDialect dialect, HikariDataSource dataSource) {
    this.displayUrl = displayUrl;
    this.dialect = dialect;
    this.dataSource = dataSource;
    // Per-statement debug logging would cost more than the demo's statements themselves.
    this.dsl = DSL.using(dataSource, dialect, new Settings().withExecuteLogging(false));
  }

  /**
   * Opens {@code url} with a pool of {@code poolSize} connections; a SQLite file that does not
   * exist yet is created.
   *
   * @throws DemoException for an unsupported URL or a database that cannot be reached
   */
  static DemoDatabase open(String url, int poolSize) {
    String display = redact(url);
    String lower = url.toLowerCase(Locale.ROOT);
    if (SUPPORTED_PREFIXES.stream().noneMatch(lower::startsWith)) {
      throw new DemoException(
          "unsupported database URL "
              + display
              + ": use jdbc:postgresql://HOST:PORT/DB, jdbc:mariadb://HOST:PORT/DB,"
              + " jdbc:mysql://HOST:PORT/DB or jdbc:sqlite:FILE");
    }
    if (lower.startsWith(SQLITE) && sqliteFile(url) == null) {
      throw new DemoException(
          "the demo needs a SQLite file that all its connections share, not " + display);
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(effectiveUrl(url));
    config.setPoolName("outbox-demo");
    config.setMaximumPoolSize(poolSize);
    config.setConnectionTimeout(30_000);
    try {
      return new DemoDatabase(display, JDBCUtils.dialect(url), new HikariDataSource(config));
    } catch (RuntimeException e) {
      throw new DemoException("cannot connect to " + display + ": " + reason(e), e);
    }
  }

  /** The URL as given, password masked. */
  String displayUrl() {
    return displayUrl;
  }

  SQLDialect dialect() {
    return dialect;
  }

  DataSource dataSource() {
    return dataSource;
  }

  DSLContext dsl() {
    return dsl;
  }

  /** The database file of a {@code jdbc:sqlite:FILE} URL; null for other URLs. */
  static Path sqliteFile(String url) {
    if (!url.startsWith(SQLITE)) {
      return null;
    }
    String path = url.substring(SQLITE.length());
    int query = path.indexOf('?');
    if (query >= 0) {
      path = path.substring(0, query);
    }
    if (path.isEmpty() || path.startsWith(":") || path.startsWith("file:")) {
      return null;
    }
    return Path.of(path);
  }

  @Override
  public void close() {
    dataSource.close();
  }

  /** The URL handed to the driver: the given one, plus what concurrent use needs. */
  static String effectiveUrl(String url) {
    if (url.startsWith(SQLITE)) {
      // WAL: readers beside the one writer. The busy timeout makes writers, the relays' claims
      // and the ledger's bookings queue for the write lock instead of failing. NORMAL
      // synchronous is WAL's usual pairing: durable across a crash of the process.
      String u = withParamIfAbsent(url, "journal_mode", "WAL");
      u = withParamIfAbsent(u, "busy_timeout", "30000");
      return withParamIfAbsent(u, "synchronous", "NORMAL");
    }
    if (url.startsWith("jdbc:mysql:")) {
      return withParamIfAbsent(url, "permitMysqlScheme", "true");
    }
    return url;
  }

  private static String withParamIfAbsent(String url, String key, String value) {
    int query = url.indexOf('?');
    if (query >= 0) {
      for (String param : url.substring(query + 1).split("&")) {
        if (param.regionMatches(true, 0, key + "=", 0, key.length() + 1)) {
          return url;
        }
      }
    }
    return url + (query >= 0 ? "&" : "?") + key + "=" + value;
  }

  static String redact(String url) {
    String masked = PASSWORD_PARAM.matcher(url).replaceAll("$1=***");
    return USER_INFO_PASSWORD.matcher(masked).replaceAll("//$1:***@");
  }

  private static String reason(Throwable e) {
    String innermost = e.getMessage();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException && t.getMessage() != null) {
        return t.getMessage();
      }
      if (t.getMessage() != null) {
        innermost = t.getMessage();
      }
    }
    return innermost == null ? e.getClass().getSimpleName() : innermost;
  }
}
