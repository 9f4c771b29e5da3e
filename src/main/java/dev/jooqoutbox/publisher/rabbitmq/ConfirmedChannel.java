package dev.jooqoutbox.publisher.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import dev.jooqoutbox.publisher.PublishException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * One channel in confirm mode and the publishes awaiting its confirmation, keyed by delivery tag.
 * An ack completes them, a nack, an earlier return of the same message or the channel's shutdown
 * fails them. The listeners run on the connection's reader thread, in the order the broker sent the
 * frames, so a message's return is seen before its ack (AMQP sends basic.return first).
 */
final class ConfirmedChannel {

  /** A publish awaiting its confirmation; {@code returned} is set by a basic.return. */
  private static final class Pending {
    final String messageId;
    final CompletableFuture<Void> future = new CompletableFuture<>();
    volatile String returned;

    Pending(String messageId) {
      this.messageId = messageId;
    }
  }

  private final Channel channel;
  private final ConcurrentNavigableMap<Long, Pending> pending = new ConcurrentSkipListMap<>();

  ConfirmedChannel(Channel channel) throws IOException {
    this.channel = channel;
    channel.confirmSelect();
    channel.addReturnListener(this::returned);
    channel.addConfirmListener((tag, multiple) -> settle(tag, multiple, null), this::nacked);
    channel.addShutdownListener(this::shutDown);
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  /**
   * Publishes with {@code mandatory} set; the caller serializes calls (the delivery tag is the
   * channel's next publish sequence number only while no other publish comes between).
   */
  CompletableFuture<Void> publish(
      String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body) {
    long tag = channel.getNextPublishSeqNo();
    Pending p = new Pending(properties.getMessageId());
    pending.put(tag, p);
    try {
      channel.basicPublish(exchange, routingKey, true, properties, body);
    } catch (IOException | RuntimeException e) {
      // A publish on a closed channel throws: the shutdown listener may have run before the put.
      pending.remove(tag);
      p.future.completeExceptionally(new PublishException("RabbitMQ publish failed", e));
    }
    return p.future;
  }

  void close() {
    try {
      if (channel.isOpen()) {
        channel.close();
      }
    } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
      // Closing is best effort; pending publishes are failed by the shutdown listener.
    }
  }

  private void returned(Return ret) {
    String id = ret.getProperties().getMessageId();
    String reason =
        "RabbitMQ returned the message as unroutable: "
            + ret.getReplyCode()
            + " "
            + ret.getReplyText()
            + " (exchange '"
            + ret.getExchange()
            + "', routing key '"
            + ret.getRoutingKey()
            + "')";
    // The oldest unconfirmed publish of this id that is not yet marked: a return precedes its ack.
    for (Pending p : pending.values()) {
      if (p.returned == null && p.messageId != null && p.messageId.equals(id)) {
        p.returned = reason;
        return;
      }
    }
  }

  private void nacked(long tag, boolean multiple) {
    settle(tag, multiple, "RabbitMQ nacked the message (the broker could not take it)");
  }

  private void settle(long tag, boolean multiple, String nackReason) {
    Map<Long, Pending> settled =
        multiple ? pending.headMap(tag, true) : pending.subMap(tag, true, tag, true);
    for (var it = settled.values().iterator(); it.hasNext(); ) {
      Pending p = it.next();
      it.remove();
      String failure = nackReason != null ? nackReason : p.returned;
      if (failure == null) {
        p.future.complete(null);
      } else {
        p.future.completeExceptionally(new PublishException(failure));
      }
    }
  }

  private void shutDown(ShutdownSignalException cause) {
    for (var it = pending.values().iterator(); it.hasNext(); ) {
      Pending p = it.next();
      it.remove();
      p.future.completeExceptionally(
          new PublishException(
              "RabbitMQ channel closed before the broker confirmed the message: "
                  + cause.getMessage(),
              cause));
    }
  }
}
