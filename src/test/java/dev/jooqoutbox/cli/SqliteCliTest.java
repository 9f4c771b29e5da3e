package dev.jooqoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteCliTest extends CliContract {
  SqliteCliTest() {
    super(TestDatabase.Kind.SQLITE);
  }

  /** A directory exists, so the commands try to open it, and SQLite cannot. */
  @Override
  String unreachableUrl() {
    return "jdbc:sqlite:" + System.getProperty("java.io.tmpdir");
  }

  @Test
  void migrateCreatesAMissingFileInWalMode(@TempDir Path dir) throws SQLException {
    Path file = dir.resolve("new.db");
    String url = "jdbc:sqlite:" + file;
    CliResult r = CliResult.run("migrate", "--db", url);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("created the outbox tables in " + url + "\n");
    assertThat(Files.exists(file)).isTrue();
    // journal_mode=WAL is stored in the file, so a plain connection reports it.
    try (Connection c = DriverManager.getConnection(url);
        ResultSet rs = c.createStatement().executeQuery("PRAGMA journal_mode")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
    }
  }

  @Test
  void operatorCommandsDoNotCreateAMissingFile(@TempDir Path dir) {
    Path file = dir.resolve("typo.db");
    String url = "jdbc:sqlite:" + file;
    CliResult r = CliResult.run("status", "--db", url);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "outbox status: there is no SQLite database at "
                + file
                + ": run `outbox migrate --db "
                + url
                + "` first (it creates the file)\n");
    assertThat(Files.exists(file)).isFalse();
  }

  @Test
  void migrateDryRunOnAMissingFilePrintsTheSqlAndCreatesNoFile(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("missing.db");
    String url = "jdbc:sqlite:" + file;
    CliResult r = CliResult.run("migrate", "--db", url, "--dry-run");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out())
        .startsWith(
            "-- There is no SQLite database at "
                + file
                + " yet, and none was\n"
                + "-- created: this is the SQL `outbox migrate` would run on the new file.\n")
        .contains("CREATE TABLE outbox_message")
        .contains("CREATE TABLE inbox_message");
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).as("no file, no -wal, no -shm").isEmpty();
    }

    CliResult named = CliResult.run("migrate", "--db", url, "--outbox", "alpha", "--dry-run");
    assertThat(named.exitCode()).as(named.toString()).isZero();
    assertThat(named.out()).contains("CREATE TABLE alpha_outbox_message");
    assertThat(Files.exists(file)).isFalse();
  }
}
