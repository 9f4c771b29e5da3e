package dev.jooqoutbox.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as operators type and read them: {@code 30s}, {@code 15m}, {@code 12h}, {@code 7d}. */
final class Durations {

  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})([smhd])");

  private Durations() {}

  /** Converts an option value; a bad one is a usage error (exit 2) naming the option. */
  static final class Converter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return parse(value);
    }
  }

  static Duration parse(String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      throw new TypeConversionException(
          "'" + text + "' is not a duration: use a number and a unit, such as 30s, 15m, 12h or 7d");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> Duration.ofDays(amount);
    };
  }

  /**
   * The two largest units of {@code d}, rounded down: {@code 7d}, {@code 3d4h}, {@code 2m5s},
   * {@code 45s}, {@code 0s}. Exact for the values {@link #parse} accepts.
   */
  static String format(Duration d) {
    long seconds = Math.max(0, d.getSeconds());
    long[] amounts = {seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60, seconds % 60};
    String[] units = {"d", "h", "m", "s"};
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < amounts.length; i++) {
      if (amounts[i] > 0) {
        text.append(amounts[i]).append(units[i]);
        if (i + 1 < amounts.length && amounts[i + 1] > 0) {
          text.append(amounts[i + 1]).append(units[i + 1]);
        }
        return text.toString();
      }
    }
    return "0s";
  }
}
