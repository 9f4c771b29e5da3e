package dev.jooqoutbox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.tools.jdbc.JDBCUtils;

/**
 * The database a command works on, opened from the JDBC URL an operator typed: a small Hikari pool
 * and the jOOQ dialect the URL names. Every way of not getting there (unsupported URL, unreachable
 * server, missing SQLite file, missing tables) is a {@link CliException} with a message that says
 * what to do. Messages show the URL with any password masked.
 */
final class CliDatabase implements AutoCloseable {

  private static final List<String> SUPPORTED_PREFIXES =
      List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:sqlite:");
  private static final String SQLITE = "jdbc:sqlite:";
  private static final Pattern PASSWORD_PARAM =
      Pattern.compile("(?i)\\b(password|pwd|sslpassword)=[^&;]*");
  private static final Pattern USER_INFO_PASSWORD = Pattern.compile("//([^/:@]+):[^/@]*@");
  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9:/._=@%+,-]+");

  private final String displayUrl;
  private final HikariDataSource dataSource;
  private final DSLContext dsl;

  private CliDatabase(String displayUrl, HikariDataSource dataSource, SQLDialect dialect) {
    this.displayUrl = displayUrl;
    this.dataSource = dataSource;
    this.dsl = DSL.using(dataSource, dialect);
  }

  /**
   * Opens the database at {@code url}, creating a SQLite file that does not exist yet. For commands
   * that set a database up: {@code migrate}, the demo.
   */
  static CliDatabase open(String url) {
    String display = redact(url);
    SQLDialect dialect = dialectOf(url, display);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(effectiveUrl(url));
    config.setPoolName("outbox-cli");
    config.setMaximumPoolSize(2);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(10_000);
    try {
      // Hikari opens the first connection here (initializationFailTimeout), so a bad host, port,
      // password or database name fails now, with the driver's reason.
      return new CliDatabase(display, new HikariDataSource(config), dialect);
    } catch (RuntimeException e) {
      throw new CliException("cannot connect to " + display + ": " + reason(e), e);
    }
  }

  /**
   * Opens the database at {@code url} and requires the outbox tables in it. For every command that
   * reads or changes the outbox; a SQLite file that does not exist is an error, not created.
   */
  static CliDatabase openMigrated(String url) {
    String display = redact(url);
    dialectOf(url, display);
    Path sqliteFile = sqliteFile(url);
    if (sqliteFile != null && !Files.exists(sqliteFile)) {
      throw new CliException(
          "there is no SQLite database at "
              + sqliteFile.toAbsolutePath()
              + ": run `outbox migrate --db "
              + shellQuoted(display)
              + "` first (it creates the file)");
    }
    CliDatabase db = open(url);
    try {
      if (!db.isMigrated()) {
        throw new CliException(
            "the outbox tables are missing in "
                + display
                + ": run `outbox migrate --db "
                + shellQuoted(display)
                + "` first");
      }
      return db;
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** The URL as the operator typed it, password masked: for messages. */
  String displayUrl() {
    return displayUrl;
  }

  DataSource dataSource() {
    return dataSource;
  }

  DSLContext dsl() {
    return dsl;
  }

  boolean isMigrated() {
    return OutboxSchema.isMigrated(dsl);
  }

  @Override
  public void close() {
    dataSource.close();
  }

  private static SQLDialect dialectOf(String url, String display) {
    String lower = url.toLowerCase(Locale.ROOT);
    if (SUPPORTED_PREFIXES.stream().noneMatch(lower::startsWith)) {
      throw new CliException(
          "unsupported database URL "
              + display
              + ": use jdbc:postgresql://HOST:PORT/DB, jdbc:mariadb://HOST:PORT/DB,"
              + " jdbc:mysql://HOST:PORT/DB or jdbc:sqlite:FILE");
    }
    return JDBCUtils.dialect(url);
  }

  /** The URL handed to the driver: the operator's, with the settings the outbox needs added. */
  static String effectiveUrl(String url) {
    if (url.startsWith(SQLITE)) {
      // WAL lets the relay's reads run beside a writer; the busy timeout makes a second writer
      // (this command next to a running relay) wait for the lock instead of failing at once.
      return withParamIfAbsent(
          withParamIfAbsent(url, "journal_mode", "WAL"), "busy_timeout", "30000");
    }
    if (url.startsWith("jdbc:mysql:")) {
      // The MariaDB driver speaks to MySQL too, but takes jdbc:mysql: URLs only when asked to.
      return withParamIfAbsent(url, "permitMysqlScheme", "true");
    }
    return url;
  }

  /** The file of a plain {@code jdbc:sqlite:PATH} URL; null for other URLs, memory and URIs. */
  private static Path sqliteFile(String url) {
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

  private static String shellQuoted(String text) {
    return SHELL_SAFE.matcher(text).matches() ? text : "'" + text.replace("'", "'\\''") + "'";
  }

  /** The driver's own words: the first SQLException's message, else the innermost message. */
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
