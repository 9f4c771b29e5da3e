package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjLongConsumer;
import org.jooq.SQLDialect;

/**
 * The relay in another JVM of figure 4: one relay with default settings (LISTEN on) on PostgreSQL,
 * whose handler prints {@code H <message id> <System.nanoTime()>} for each message; it prints
 * {@code READY} once started and stops when its standard input closes. {@link #start} runs it as a
 * child process of the harness and hands each handler start to the caller.
 */
public final class LatencyChild {

  private LatencyChild() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setMaximumPoolSize(5);
    config.setPoolName("latency-child");
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (HikariDataSource ds = new HikariDataSource(config)) {
      OutboxRelay relay =
          OutboxRelay.builder(ds, SQLDialect.POSTGRES)
              .handler(
                  BenchDatabase.TOPIC,
                  m -> {
                    long now = System.nanoTime();
                    out.println("H " + m.id() + " " + now);
                  })
              .build();
      try {
        relay.start();
        Thread.sleep(1000); // its LISTEN connection is up
        out.println("READY");
        while (System.in.read() >= 0) {
          // the parent closes our stdin when it is done
        }
      } finally {
        relay.close();
        Thread.sleep(700); // the LISTEN thread gives its connection back within its poll
      }
    }
  }

  /** Starts the child on {@code url}; returns once it is READY. Closing it ends the child. */
  static AutoCloseable start(String url, ObjLongConsumer<String> started) throws Exception {
    List<String> command = MemoryBench.childJvm(List.of("-Xmx256m"), LatencyChild.class, url);
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  if (line.startsWith("H ")) {
                    int space = line.indexOf(' ', 2);
                    started.accept(
                        line.substring(2, space), Long.parseLong(line.substring(space + 1)));
                  } else if (line.equals("READY")) {
                    ready.countDown();
                  } else {
                    System.out.println("  [latency child] " + line);
                  }
                }
              } catch (IOException e) {
                System.out.println("  [latency child] output ended: " + e.getMessage());
              }
            },
            "bench-latency-child-output");
    reader.setDaemon(true);
    reader.start();
    if (!ready.await(60, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new IllegalStateException("the latency child did not start");
    }
    return () -> {
      child.getOutputStream().close();
      if (!child.waitFor(20, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
      reader.join(2000);
    };
  }
}
