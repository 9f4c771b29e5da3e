package dev.jooqoutbox.internal.tracing;

/**
 * Whether the OpenTelemetry API is on the class path, asked without loading any of its classes into
 * a class that the core needs (OpenTelemetry is an optional dependency).
 */
final class TracingSupport {

  static final boolean API_PRESENT = present("io.opentelemetry.api.GlobalOpenTelemetry");

  private TracingSupport() {}

  private static boolean present(String className) {
    try {
      Class.forName(className, false, TracingSupport.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError absent) {
      return false;
    }
  }
}
