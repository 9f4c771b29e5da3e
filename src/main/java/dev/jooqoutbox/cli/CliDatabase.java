package dev.jooqoutbox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.internal.cli.ConnectFailures;
import dev.jooqoutbox.internal.cli.JdbcUrls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The database a command works on, opened from the JDBC URL an operator typed: a small Hikari pool
 * and the jOOQ dialect the URL names. An unsupported URL or an invalid outbox name is a usage error
 * ({@link DatabaseOption}); every other way of not getting there (unreachable server, missing
 * SQLite file, missing tables) is a {@link CliException} with a message that says what to do.
 * Messages show the URL with any password masked.
 */
final class CliDatabase implements AutoCloseable {

  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9:/._=@%+,-]+");

  private final String displayUrl;
  private final HikariDataSource dataSource;
  private final DSLContext dsl;
  private final OutboxName name;

  private CliDatabase(
      String displayUrl, HikariDataSource dataSource, SQLDialect dialect, OutboxName name) {
    this.displayUrl = displayUrl;
    this.dataSource = dataSource;
    this.dsl = DSL.using(dataSource, dialect);
    this.name = name;
  }

  /**
   * Opens the database at {@code url}, creating a SQLite file that does not exist yet. For commands
   * that set a database up: {@code migrate}, the demo.
   */
  static CliDatabase open(DatabaseOption option) {
    return open(option, JdbcUrls.effectiveUrl(option.url), 2);
  }

  /**
   * An empty in-memory SQLite database standing in for the SQLite file {@code --db} names, which
   * does not exist: the SQL a migration prints for it is the SQL it would run on the new file, and
   * no file is created. Messages still show the operator's URL.
   */
  static CliDatabase openEmptyStandIn(DatabaseOption option) {
    // One connection, kept for the whole command: each connection to :memory: is its own database.
    return open(option, "jdbc:sqlite::memory:", 1);
  }

  private static CliDatabase open(DatabaseOption option, String jdbcUrl, int poolSize) {
    OutboxName name = option.name();
    SQLDialect dialect = option.dialect();
    String display = JdbcUrls.redact(option.url);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setPoolName("outbox-cli");
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(10_000);
    try {
      // Hikari opens the first connection here (initializationFailTimeout), so a bad host, port,
      // password or database name fails now, with the driver's reason.
      return new CliDatabase(display, new HikariDataSource(config), dialect, name);
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot connect to " + display + ": " + ConnectFailures.describe(e), e);
    }
  }

  /**
   * The SQLite file {@code --db} names when it does not exist; null when it exists, or the URL is
   * not a plain SQLite file URL.
   */
  static Path missingSqliteFile(DatabaseOption option) {
    Path file = JdbcUrls.sqliteFile(option.url);
    return file != null && !Files.exists(file) ? file.toAbsolutePath() : null;
  }

  /**
   * Opens the database at {@code url} and requires the outbox tables in it. For every command that
   * reads or changes the outbox; a SQLite file that does not exist is an error, not created.
   */
  static CliDatabase openMigrated(DatabaseOption option) {
    // Bad arguments fail before anything is looked at or opened.
    option.name();
    option.dialect();
    String display = JdbcUrls.redact(option.url);
    Path sqliteFile = missingSqliteFile(option);
    if (sqliteFile != null) {
      throw new CliException(
          "there is no SQLite database at "
              + sqliteFile
              + ": run `outbox migrate "
              + option.again(display)
              + "` first (it creates the file)");
    }
    CliDatabase db = open(option);
    try {
      if (!db.isMigrated()) {
        throw new CliException(
            (db.name.isDefault() ? "the outbox tables are" : "the tables of " + db.name + " are")
                + " missing in "
                + display
                + ": run `outbox migrate "
                + option.again(display)
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

  /** The outbox {@code --outbox} named, or the default one. */
  OutboxName name() {
    return name;
  }

  /** An admin of this database's outbox ({@code --outbox}), with "now" from {@code clock}. */
  OutboxAdmin admin(Clock clock) {
    return OutboxAdmin.create(dsl, clock, name);
  }

  boolean isMigrated() {
    return OutboxSchema.isMigrated(dsl, name);
  }

  @Override
  public void close() {
    dataSource.close();
  }

  static String shellQuoted(String text) {
    return SHELL_SAFE.matcher(text).matches() ? text : "'" + text.replace("'", "'\\''") + "'";
  }
}
