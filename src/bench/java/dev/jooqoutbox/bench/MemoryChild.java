package dev.jooqoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.relay.OutboxRelay;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.SQLDialect;

/**
 * The child JVM of figure 6: one relay with default settings drains the backlog, then prints {@code
 * DRAINED <count> <millis> <peakHeapBytes>} and waits for its standard input to close, so the
 * parent can read its peak resident memory while it still runs.
 */
public final class MemoryChild {

  private MemoryChild() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    long n = Long.parseLong(args[1]);
    long timeoutSeconds = Long.parseLong(args[2]);
    SQLDialect dialect =
        switch (BenchDatabase.Kind.of(url)) {
          case POSTGRESQL -> SQLDialect.POSTGRES;
          case MARIADB -> SQLDialect.MARIADB;
          case SQLITE -> SQLDialect.SQLITE;
        };
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(3);
    config.setPoolName("memory-child");
    LongAdder handled = new LongAdder();
    HikariDataSource ds = new HikariDataSource(config);
    OutboxRelay relay =
        OutboxRelay.builder(ds, dialect)
            .handler(BenchDatabase.TOPIC, m -> handled.increment())
            .build();
    try {
      long start = System.nanoTime();
      relay.start();
      long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      long lastReport = start;
      // Poll the handler count, not the table: counting a million pending rows five times a
      // second would compete with the relay for the two cores.
      while (handled.sum() < n || pending(ds) > 0) {
        if (System.nanoTime() > deadline) {
          System.out.println("TIMEOUT after " + handled.sum() + " messages");
          System.exit(2);
        }
        Thread.sleep(200);
        if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(10)) {
          lastReport = System.nanoTime();
          System.out.printf(
              "progress %d handled, heap used %d MiB%n",
              handled.sum(),
              (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
        }
      }
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      long peakHeap = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
          peakHeap += pool.getPeakUsage().getUsed();
        }
      }
      if (handled.sum() < n) {
        System.out.println("SHORT handled " + handled.sum() + " of " + n);
        System.exit(3);
      }
      System.out.println("DRAINED " + handled.sum() + " " + millis + " " + peakHeap);
      System.out.flush();
      waitForStdinToClose();
    } finally {
      relay.close();
      // close() does not wait for the LISTEN thread, which releases its connection within its
      // 500 ms poll; closing the pool under it would log a broken-connection warning.
      Thread.sleep(700);
      ds.close();
    }
  }

  /** Counts pending rows; the cheap partial-index count the relay's gauges use too. */
  private static long pending(HikariDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM outbox_message WHERE sent_at IS NULL AND dead_at IS NULL")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void waitForStdinToClose() {
    try {
      while (System.in.read() >= 0) {
        // the parent closes our stdin once it has read VmHWM
      }
    } catch (IOException e) {
      // closed: done
    }
  }
}
