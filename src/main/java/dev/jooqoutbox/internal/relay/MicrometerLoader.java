package dev.jooqoutbox.internal.relay;

import java.lang.reflect.InvocationTargetException;

/**
 * Loads the relay's Micrometer metrics by name, so that Micrometer stays an optional dependency.
 */
final class MicrometerLoader {

  private MicrometerLoader() {}

  /**
   * The metrics on a Micrometer {@code registry}. The implementation sits in {@code
   * internal.micrometer}, above this package (it implements {@link RelayMetrics}), so it is named
   * here by its class name, not referred to: without a registry nothing of it nor of Micrometer (an
   * optional dependency) is loaded.
   */
  static RelayMetrics metrics(Object registry) {
    try {
      return (RelayMetrics)
          Class.forName(MICROMETER_METRICS, true, MicrometerLoader.class.getClassLoader())
              .getMethod("on", Object.class)
              .invoke(null, registry);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException unchecked) {
        throw unchecked;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(MICROMETER_METRICS + " could not be loaded", e);
    }
  }

  private static final String MICROMETER_METRICS =
      "dev.jooqoutbox.internal.micrometer.MicrometerRelayMetrics";
}
