package com.example.start;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The getting-started main (docs/getting-started.md), run as a user runs it: on an empty SQLite
 * file and on an empty PostgreSQL schema, it migrates, writes one message and prints its delivery.
 */
class GettingStartedTest {

  private static final String POSTGRES =
      System.getProperty(
          "start.test.postgres", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  @Test
  void anEmptySqliteFileToADeliveredMessage(@TempDir Path dir) throws Exception {
    String url = "jdbc:sqlite:" + dir.resolve("start.db") + "?journal_mode=WAL&busy_timeout=30000";
    assertThat(run(url)).contains("delivered greeting {\"text\":\"hello\"}");
  }

  @Test
  void anEmptyPostgresSchemaToADeliveredMessage() throws Exception {
    String schema = "start_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection admin = DriverManager.getConnection(POSTGRES)) {
      admin.createStatement().execute("create schema " + schema);
      try {
        assertThat(run(POSTGRES + "&currentSchema=" + schema))
            .contains("delivered greeting {\"text\": \"hello\"}");
      } finally {
        admin.createStatement().execute("drop schema " + schema + " cascade");
      }
    }
  }

  private static String run(String url) throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      GettingStarted.main(new String[] {url});
    } finally {
      System.setOut(out);
    }
    String text = printed.toString(StandardCharsets.UTF_8);
    out.print(text);
    return text;
  }
}
