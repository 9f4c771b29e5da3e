package dev.jooqoutbox.relay;

import dev.jooqoutbox.Resolution;
import java.util.Objects;
import java.util.Optional;

/** An {@link OutboxReconciler}'s answer about one outcome-unknown message. */
public final class Reconciliation {

  private static final Reconciliation SENT = new Reconciliation(Resolution.SENT, null, null);
  private static final Reconciliation RETRY = new Reconciliation(Resolution.RETRY, null, null);
  private static final Reconciliation UNKNOWN = new Reconciliation(null, null, null);

  private final Resolution resolution;
  private final String reason;
  private final String remoteRef;

  private Reconciliation(Resolution resolution, String reason, String remoteRef) {
    this.resolution = resolution;
    this.reason = reason;
    this.remoteRef = remoteRef;
  }

  /** The remote system received it: marked sent. */
  public static Reconciliation sent() {
    return SENT;
  }

  /**
   * The remote system did not receive it: delivered again at once (see {@link Resolution#RETRY}).
   */
  public static Reconciliation retry() {
    return RETRY;
  }

  /** It failed for good: dead-lettered with {@code reason}. */
  public static Reconciliation dead(String reason) {
    return new Reconciliation(Resolution.DEAD, Objects.requireNonNull(reason, "reason"), null);
  }

  /** Still unknown: asked again later. */
  public static Reconciliation stillUnknown() {
    return UNKNOWN;
  }

  /**
   * Still unknown, and the remote reference is now known: stored if the message had none (a stored
   * one is never replaced).
   */
  public static Reconciliation stillUnknown(String remoteRef) {
    return new Reconciliation(null, null, Objects.requireNonNull(remoteRef, "remoteRef"));
  }

  /** The resolution; empty while still unknown. */
  public Optional<Resolution> resolution() {
    return Optional.ofNullable(resolution);
  }

  /** The dead letter's reason, for {@link Resolution#DEAD}. */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** A remote reference learned while still unknown. */
  public Optional<String> remoteRef() {
    return Optional.ofNullable(remoteRef);
  }

  @Override
  public String toString() {
    return resolution == null
        ? "still unknown"
        : resolution.name().toLowerCase(java.util.Locale.ROOT);
  }
}
