package dev.jooqoutbox.internal.wakeup;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;

/**
 * A relay in a JVM of its own, for {@link PostgresRelayWakeupTest}: on a pool of three PostgreSQL
 * connections, it polls every 60 s and listens, and prints {@code HANDLED <id> <nanoTime>} when a
 * handler starts (on Linux nanoTime is one clock for every process of the machine). Runs until its
 * standard input closes.
 *
 * <p>Argument: the JDBC URL.
 */
public final class RelayProcess {

  public static void main(String[] args) throws IOException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setMaximumPoolSize(3);
    try (HikariDataSource pool = new HikariDataSource(config);
        OutboxRelay relay =
            OutboxRelay.builder(pool, SQLDialect.POSTGRES)
                .pollInterval(Duration.ofSeconds(60))
                .handler(
                    "orders",
                    message -> {
                      System.out.println("HANDLED " + message.id() + " " + System.nanoTime());
                      System.out.flush();
                    })
                .build()) {
      relay.start();
      System.out.println("STARTED");
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the parent closes our input
      }
    }
  }

  /** A running child relay as the test sees it: the handled messages and their times. */
  static final class Child implements AutoCloseable {
    private final Process process;
    private final Map<String, Long> handled = new ConcurrentHashMap<>();

    Child(String url) throws IOException {
      process =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  "-Dorg.jooq.no-logo=true",
                  "-Dorg.jooq.no-tips=true",
                  RelayProcess.class.getName(),
                  url)
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = out.readLine(); line != null; line = out.readLine()) {
                    String[] parts = line.split(" ");
                    if (parts[0].equals("HANDLED")) {
                      handled.put(parts[1], Long.parseLong(parts[2]));
                    }
                  }
                } catch (IOException e) {
                  // the process ended
                }
              },
              "relay-process-output");
      reader.setDaemon(true);
      reader.start();
    }

    /** When the child's handler started for {@code id} (its nanoTime), or null. */
    Long handledAt(String id) {
      return handled.get(id);
    }

    @Override
    public void close() throws Exception {
      process.getOutputStream().close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
