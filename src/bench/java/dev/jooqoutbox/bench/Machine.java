package dev.jooqoutbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the machine is, read from /proc where Linux has it. */
final class Machine {

  private Machine() {}

  static Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nproc", Runtime.getRuntime().availableProcessors());
    m.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
    m.put("memory", firstValue(Path.of("/proc/meminfo"), "MemTotal"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put(
        "java",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vendor")
            + ")");
    m.put("loadAverageAtStart", loadAverage());
    m.put("gitHead", git("rev-parse", "--short", "HEAD"));
    m.put("uncommittedInSrcMain", git("status", "--porcelain", "--", "src/main").lines().count());
    return m;
  }

  /** The output of a git command in the working directory, or "unknown". */
  private static String git(String... args) {
    try {
      String[] command = new String[args.length + 1];
      command[0] = "git";
      System.arraycopy(args, 0, command, 1, args.length);
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 ? out : "unknown";
    } catch (IOException | RuntimeException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  /** The 1, 5 and 15 minute load averages: how busy the shared machine was. */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * The share of the last 60 seconds in which some runnable task waited for a CPU (Linux PSI,
   * {@code /proc/pressure/cpu}), in percent: how contended the shared machine was.
   */
  static String cpuPressure() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/pressure/cpu"))) {
        if (line.startsWith("some")) {
          for (String part : line.split("\\s+")) {
            if (part.startsWith("avg60=")) {
              return part.substring("avg60=".length()) + "%";
            }
          }
        }
      }
      return "unknown";
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** VmHWM (peak resident set) of process {@code pid} in kB, or -1 when unreadable. */
  static long peakRssKb(long pid) {
    String value = firstValue(Path.of("/proc/" + pid + "/status"), "VmHWM");
    if (value == null) {
      return -1;
    }
    return Long.parseLong(value.replace("kB", "").trim());
  }

  private static String firstValue(Path file, String key) {
    try {
      List<String> lines = Files.readAllLines(file);
      for (String line : lines) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
