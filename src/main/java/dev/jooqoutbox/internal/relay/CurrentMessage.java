package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import java.util.Optional;

/** The message whose handler runs on the current thread, for {@code OutboxRelay.currentMessage}. */
public final class CurrentMessage {

  private static final ThreadLocal<OutboxMessage> CURRENT = new ThreadLocal<>();

  private CurrentMessage() {}

  public static Optional<OutboxMessage> get() {
    return Optional.ofNullable(CURRENT.get());
  }

  static void set(OutboxMessage message) {
    CURRENT.set(message);
  }

  static void clear() {
    CURRENT.remove();
  }
}
