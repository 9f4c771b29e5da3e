package dev.jooqoutbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Figure 6: one relay in a child JVM with {@code -Xmx128m} drains a backlog of 1,000,000 messages
 * without running out of memory. The parent reads the child's peak resident set ({@code VmHWM} in
 * {@code /proc/<pid>/status}) once the backlog is empty, before letting the child exit.
 */
final class MemoryBench {

  static final String HEAP = "-Xmx128m";

  static void run(BenchDatabase db, BenchOptions opts, Recorder r) {
    int n = opts.memorySize();
    long t0 = System.nanoTime();
    db.truncate();
    db.loadMessages(n, 1000, false, "m");
    db.analyze("outbox_message");
    System.out.printf("  loaded %,d pending rows in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);

    long timeoutSeconds = Math.max(60, n / 200);
    List<String> command =
        childJvm(
            List.of(HEAP, "-XX:+ExitOnOutOfMemoryError"),
            MemoryChild.class,
            db.url(),
            Integer.toString(n),
            Long.toString(timeoutSeconds));

    try {
      Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
      AtomicReference<String> drained = new AtomicReference<>();
      AtomicLong peakKb = new AtomicLong(-1);
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = in.readLine()) != null) {
                    System.out.println("  [child] " + line);
                    if (line.startsWith("DRAINED")) {
                      // Read the peak now: the backlog is empty and the child still runs.
                      peakKb.set(Machine.peakRssKb(child.pid()));
                      drained.set(line);
                      child.getOutputStream().close();
                    }
                  }
                } catch (IOException e) {
                  System.out.println("  [child] output ended: " + e.getMessage());
                }
              },
              "bench-memory-child-output");
      reader.setDaemon(true);
      reader.start();
      long lastPeak = -1;
      while (!child.waitFor(250, TimeUnit.MILLISECONDS)) {
        long p = Machine.peakRssKb(child.pid());
        if (p > 0) {
          lastPeak = p;
        }
        if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(timeoutSeconds + 120)) {
          child.destroyForcibly();
          throw new IllegalStateException("the memory child did not finish in time");
        }
      }
      reader.join(5_000);
      int exit = child.exitValue();
      if (exit != 0 || drained.get() == null) {
        throw new IllegalStateException(
            "the -Xmx128m child failed (exit " + exit + "); see its output above");
      }
      // DRAINED <count> <millis> <peakHeapBytes>
      String[] parts = drained.get().split(" ");
      long count = Long.parseLong(parts[1]);
      double seconds = Long.parseLong(parts[2]) / 1000.0;
      long peakHeap = Long.parseLong(parts[3]);
      long peak = peakKb.get() > 0 ? peakKb.get() : lastPeak;
      r.add("memory.peak_rss", "peak RSS of the relay JVM (" + HEAP + ")", "MiB", peak / 1024.0);
      r.add("memory.peak_heap", "peak heap used (all heap pools)", "MiB", peakHeap / 1048576.0);
      r.add("memory.drain_rate", "drain rate of that relay, batch 100", "msg/s", count / seconds);
      r.info("backlog", n);
      r.info("delivered", count);
      r.info("exitCode", exit);
      r.info("jvm", HEAP + " -XX:+ExitOnOutOfMemoryError");
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the memory child: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The command line of a child JVM on the harness's class path and logging configuration. */
  static List<String> childJvm(List<String> jvmOptions, Class<?> main, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    String logback = System.getProperty("logback.configurationFile");
    if (logback != null) {
      command.add("-Dlogback.configurationFile=" + logback);
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return command;
  }
}
