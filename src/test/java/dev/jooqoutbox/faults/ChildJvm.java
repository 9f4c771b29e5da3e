package dev.jooqoutbox.faults;

import dev.jooqoutbox.relay.OutboxRelay;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A test class's {@code main} running in a JVM of its own, on the test's class path, its output
 * appended to a log file. {@link #kill()} is SIGKILL on Linux: no shutdown hook, no finally block.
 * Public for the publisher tests' crash test.
 */
public final class ChildJvm {

  private final Path log;
  private final Process process;

  private ChildJvm(Path log, Process process) {
    this.log = log;
    this.process = process;
  }

  /** Starts {@code main} with {@code args}; output goes to {@code log} (appended). */
  public static ChildJvm start(Class<?> main, Path log, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPath());
    // Small and quick to start: these JVMs share two CPUs with the test and with each other.
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Duser.timezone=Pacific/Chatham");
    command.add("-Dorg.jooq.no-logo=true");
    command.add("-Dorg.jooq.no-tips=true");
    command.add(main.getName());
    command.addAll(List.of(args));
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      return new ChildJvm(log, process);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The test's class path without empty entries. Surefire's ends with a separator, and an empty
   * entry means the working directory, the project root: Liquibase would then find the changelog
   * twice, once there and once in the build output.
   */
  private static String classPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> !entry.isBlank())
        .collect(Collectors.joining(File.pathSeparator));
  }

  /**
   * For a child's {@code main}: starts {@code relay}, prints {@code ready} and blocks until the JVM
   * shuts down; a normal shutdown closes the relay, then {@code pool} (a SIGKILL closes nothing).
   */
  public static void runUntilShutdown(OutboxRelay relay, AutoCloseable pool, String ready)
      throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  try {
                    pool.close();
                  } catch (Exception e) {
                    e.printStackTrace();
                  }
                  stopped.countDown();
                }));
    relay.start();
    System.out.println(ready);
    System.out.flush();
    stopped.await();
  }

  /** Whether the child is alive and printed {@code marker} (each child has a log of its own). */
  public boolean printed(String marker) {
    return process.isAlive() && output().contains(marker);
  }

  boolean alive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** The exit code of a JVM killed by SIGKILL (128 + 9). */
  public static final int SIGKILLED = 137;

  /**
   * SIGKILL, then waits until the process is gone.
   *
   * @return its exit code ({@link #SIGKILLED} when the signal ended it), or -1 when it still runs
   *     after 10 s
   */
  public int kill() {
    process.destroyForcibly();
    return waitFor(10);
  }

  /** SIGTERM (on Linux): the JVM runs its shutdown hooks, then exits with 143. */
  void terminate() {
    process.destroy();
  }

  /** Waits up to {@code seconds} for the exit; returns the exit code, or -1 when still running. */
  int waitFor(int seconds) {
    try {
      return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Everything every child writing to this log printed so far. */
  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and what is in it: the logs of children that passed. */
  static void deleteLogs(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last {@code lines} lines of the log, for a failure message. */
  String tail(int lines) {
    List<String> all = output().lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
