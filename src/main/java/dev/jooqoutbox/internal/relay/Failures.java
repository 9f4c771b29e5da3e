package dev.jooqoutbox.internal.relay;

/** How a handler's failure is stored: bounded, and never with payload data the relay adds. */
final class Failures {

  private static final int MAX_LENGTH = 2000;

  private Failures() {}

  /**
   * Exception types and messages along the cause chain, bounded. A handler that puts payload data
   * into its own exception messages owns that.
   */
  static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 4; depth++, t = t.getCause()) {
      if (depth > 0) {
        text.append("; caused by ");
      }
      text.append(t.getClass().getName());
      if (t.getMessage() != null) {
        text.append(": ").append(t.getMessage());
      }
    }
    return text.length() <= MAX_LENGTH ? text.toString() : text.substring(0, MAX_LENGTH - 1) + "…";
  }
}
