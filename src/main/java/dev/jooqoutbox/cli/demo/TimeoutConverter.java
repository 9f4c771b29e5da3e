package dev.jooqoutbox.cli.demo;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The demo's {@code --timeout}: {@code 90s}, {@code 10m}, {@code 1h}. */
final class TimeoutConverter implements ITypeConverter<Duration> {
  private static final Pattern DURATION = Pattern.compile("(\\d{1,6})([smh])");

  @Override
  public Duration convert(String value) {
    Matcher m = DURATION.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration: use a number and a unit, such as 90s, 10m or 1h");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }
}
