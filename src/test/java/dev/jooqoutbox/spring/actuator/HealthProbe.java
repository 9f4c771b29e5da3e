package dev.jooqoutbox.spring.actuator;

import java.util.Map;

/**
 * Reads a health indicator of either Spring Boot line: Boot 3's and Boot 4's {@code Health} types
 * live in different packages, and these tests are compiled once and run on both.
 */
public final class HealthProbe {

  public record Reading(String status, Map<String, Object> details) {}

  private HealthProbe() {}

  @SuppressWarnings("unchecked")
  public static Reading read(Object indicator) {
    try {
      Object health = indicator.getClass().getMethod("health").invoke(indicator);
      Object status = health.getClass().getMethod("getStatus").invoke(health);
      String code = (String) status.getClass().getMethod("getCode").invoke(status);
      Map<String, Object> details =
          (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health);
      return new Reading(code, details);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + indicator, e);
    }
  }
}
