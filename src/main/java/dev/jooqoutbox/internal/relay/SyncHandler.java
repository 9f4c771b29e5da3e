package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A synchronous handler seen as an asynchronous one: it runs on the lane's thread and its stage is
 * complete when it returns, so the lane goes on without a hand-off.
 */
public record SyncHandler(OutboxHandler handler) implements AsyncOutboxHandler {

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  @Override
  public CompletionStage<?> handle(OutboxMessage message) {
    try {
      handler.handle(message);
      return DONE;
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
