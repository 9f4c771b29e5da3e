package dev.jooqoutbox.relay;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Thrown by a handler (or completing an asynchronous handler's stage) to have the message delivered
 * again at a chosen time, for example when the remote system answered "retry after 30 s". Not a
 * failure: the attempt is given back (it does not count against the maximum attempts), the failure
 * metrics do not count it, and the last error is left as it was. The message keeps blocking its
 * aggregate until then.
 *
 * <p>Only this exception itself counts, not one that wraps it (a {@code CompletionException} around
 * an asynchronous stage's failure is unwrapped). A handler that reschedules forever delays its
 * aggregate forever.
 */
public class RescheduleException extends Exception {

  private static final long serialVersionUID = 1L;

  private final Instant at;
  private final Duration after;

  private RescheduleException(String message, Instant at, Duration after) {
    super(message);
    this.at = at;
    this.after = after;
  }

  /** Next attempt at {@code at} (on the relay's clock); a time in the past means at once. */
  public static RescheduleException at(Instant at) {
    return new RescheduleException("rescheduled at " + at, Objects.requireNonNull(at, "at"), null);
  }

  /** Next attempt {@code after} from the moment the relay records it. */
  public static RescheduleException after(Duration after) {
    if (after == null || after.isNegative()) {
      throw new IllegalArgumentException("after must be zero or positive, was " + after);
    }
    return new RescheduleException("rescheduled after " + after, null, after);
  }

  /** When the next attempt is due, given the relay's {@code now}. */
  public Instant nextAttemptAt(Instant now) {
    return at != null ? at : now.plus(after);
  }
}
