package dev.jooqoutbox.internal.tracing;

import java.util.function.Supplier;

/** The span of one delivery attempt; {@link #NONE} when there is no tracing. */
public interface AttemptSpan {

  AttemptSpan NONE = new AttemptSpan() {};

  /**
   * Calls {@code call} on this thread with this span current, so that what the handler starts or
   * injects (a broker message's headers) continues this trace. What {@code call} throws passes
   * through.
   */
  default <T> T callInside(Supplier<T> call) {
    return call.get();
  }

  /** Ends the span: {@code failure} null for a success, else the error the attempt ended with. */
  default void end(Throwable failure) {}
}
