package dev.jooqoutbox.internal.cli;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jooq.SQLDialect;
import org.jooq.tools.jdbc.JDBCUtils;

/**
 * The JDBC URLs an operator types, for the CLI and the demo: which are supported, how to show them
 * (password masked), and what the outbox adds to them before the driver sees them.
 */
public final class JdbcUrls {

  private static final String SQLITE = "jdbc:sqlite:";
  private static final List<String> SUPPORTED_PREFIXES =
      List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", SQLITE);
  private static final Pattern PASSWORD_PARAM =
      Pattern.compile("(?i)\\b(password|pwd|sslpassword)=[^&;]*");
  private static final Pattern USER_INFO_PASSWORD = Pattern.compile("//([^/:@]+):[^/@]*@");

  private JdbcUrls() {}

  /**
   * The jOOQ dialect of {@code url}.
   *
   * @throws IllegalArgumentException for a database the outbox does not support, with a message
   *     that shows the (redacted) URL and the supported forms
   */
  public static SQLDialect dialect(String url) {
    String lower = url.toLowerCase(Locale.ROOT);
    if (SUPPORTED_PREFIXES.stream().noneMatch(lower::startsWith)) {
      throw new IllegalArgumentException(
          "unsupported database URL "
              + redact(url)
              + ": use jdbc:postgresql://HOST:PORT/DB, jdbc:mariadb://HOST:PORT/DB,"
              + " jdbc:mysql://HOST:PORT/DB or jdbc:sqlite:FILE");
    }
    return JDBCUtils.dialect(url);
  }

  /** The URL with any password masked: for messages. */
  public static String redact(String url) {
    String masked = PASSWORD_PARAM.matcher(url).replaceAll("$1=***");
    return USER_INFO_PASSWORD.matcher(masked).replaceAll("//$1:***@");
  }

  /** The file of a plain {@code jdbc:sqlite:PATH} URL; null for other URLs, memory and URIs. */
  public static Path sqliteFile(String url) {
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

  /** The URL handed to the driver: the operator's, with the settings the outbox needs added. */
  public static String effectiveUrl(String url) {
    if (url.startsWith(SQLITE)) {
      // WAL lets the relay's reads run beside a writer; the busy timeout makes a second writer
      // (a command next to a running relay) wait for the lock instead of failing at once.
      return withParamIfAbsent(
          withParamIfAbsent(url, "journal_mode", "WAL"), "busy_timeout", "30000");
    }
    if (url.startsWith("jdbc:mysql:")) {
      // The MariaDB driver speaks to MySQL too, but takes jdbc:mysql: URLs only when asked to.
      return withParamIfAbsent(url, "permitMysqlScheme", "true");
    }
    return url;
  }

  /** {@code url} with {@code key=value} added unless it already sets {@code key}. */
  public static String withParamIfAbsent(String url, String key, String value) {
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

  /** The driver's own words: the first SQLException's message, else the innermost message. */
  public static String reason(Throwable e) {
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
