package dev.jooqoutbox.internal.relay;

import java.time.Duration;
import java.util.function.Function;

/**
 * One relay setting: the name the builder and its messages use, its Spring property (under {@code
 * jooq-outbox.relay.}, null when it has none), its default and its bounds. The settings themselves
 * are listed once, in {@link Settings}.
 */
public sealed interface Setting permits Setting.Count, Setting.Span {

  /** The builder's name of this setting, as its messages spell it: {@code batchSize}. */
  String name();

  /** The Spring property under {@code jooq-outbox.relay.}, or null: {@code batch-size}. */
  String property();

  /**
   * A whole number between {@code min} and {@code max}.
   *
   * @param defaultValue the default, or null when it is derived from other settings
   */
  record Count(String name, String property, Integer defaultValue, int min, int max)
      implements Setting {

    /**
     * @throws InvalidSettingException when {@code value} is out of bounds
     */
    public int check(int value) {
      return check("", value);
    }

    /** {@link #check(int)} for a per-topic setting, named {@code prefix} + {@link #name()}. */
    int check(String prefix, int value) {
      if (value < min || value > max) {
        throw new InvalidSettingException(
            naming ->
                named(this, prefix, naming)
                    + " must be between "
                    + min
                    + " and "
                    + max
                    + ", was "
                    + value);
      }
      return value;
    }
  }

  /** A positive duration. */
  record Span(String name, String property, Duration defaultValue) implements Setting {

    /**
     * @throws InvalidSettingException when {@code value} is null, zero or negative
     */
    public Duration check(Duration value) {
      return check("", value);
    }

    Duration check(String prefix, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new InvalidSettingException(
            naming -> named(this, prefix, naming) + " must be a positive duration, was " + value);
      }
      return value;
    }

    /**
     * Checks a pair of spans that bound a growing wait: both positive, {@code upper} at least
     * {@code lower}.
     */
    static void checkOrdered(
        String prefix, Span lower, Duration lowerValue, Span upper, Duration upperValue) {
      lower.check(prefix, lowerValue);
      upper.check(prefix, upperValue);
      if (upperValue.compareTo(lowerValue) < 0) {
        throw new InvalidSettingException(
            naming ->
                named(upper, prefix, naming)
                    + " must be at least "
                    + named(lower, prefix, naming)
                    + ", was "
                    + upperValue
                    + " < "
                    + lowerValue);
      }
    }
  }

  /**
   * A per-topic setting ({@code prefix} set, as {@code retryPolicy(t).}) keeps the builder's name:
   * it is a builder call, not a property.
   */
  private static String named(Setting setting, String prefix, Function<Setting, String> naming) {
    return prefix.isEmpty() ? naming.apply(setting) : prefix + setting.name();
  }
}
