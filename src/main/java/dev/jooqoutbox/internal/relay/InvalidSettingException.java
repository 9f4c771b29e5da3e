package dev.jooqoutbox.internal.relay;

import java.util.function.Function;

/**
 * A relay setting out of its bounds. Its message names each setting as the builder does ({@code
 * batchSize must be between 1 and 10000, was 0}); {@link #message} names them otherwise, as the
 * Spring integration does with its property names, without rewriting text.
 */
public final class InvalidSettingException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final transient Function<Function<Setting, String>, String> message;

  InvalidSettingException(Function<Function<Setting, String>, String> message) {
    super(message.apply(Setting::name));
    this.message = message;
  }

  /** The message with each setting it is about named by {@code naming}. */
  public String message(Function<Setting, String> naming) {
    return message == null ? getMessage() : message.apply(naming);
  }
}
