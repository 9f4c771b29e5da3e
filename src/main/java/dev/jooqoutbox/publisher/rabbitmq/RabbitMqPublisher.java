package dev.jooqoutbox.publisher.rabbitmq;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.publisher.PublishException;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.io.IOException;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Publishes outbox messages to RabbitMQ and settles each on the broker's publisher confirm.
 *
 * <p>Each message is published {@code mandatory} and persistent (delivery mode 2) to the exchange
 * and routing key the builder's functions give it (by default: exchange = topic, routing key =
 * aggregate), with message id = outbox id, content type {@code application/json}, timestamp = the
 * message's creation time and the message's headers as AMQP headers; the body is the payload JSON
 * in UTF-8. The returned stage completes normally only when the broker acked the message and did
 * not return it. A nack, a return (no queue bound for the routing key), the loss of the channel or
 * the connection before the ack, or a broker that cannot be reached completes it with a {@link
 * PublishException} carrying the broker's reason: the relay retries with backoff, and never marks
 * such a message sent.
 *
 * <p>The publisher opens its own connection (from a copy of the given factory, with the client's
 * automatic recovery off) and one channel in confirm mode, lazily; after a loss the next message
 * opens new ones, so the relay resumes by itself when the broker is back. Many messages are in
 * flight at once on the channel (as many as the relay's {@code maxInFlight}). Thread-safe. Close it
 * after the relay.
 */
public final class RabbitMqPublisher implements AsyncOutboxHandler, AutoCloseable {

  private final ConnectionFactory factory;
  private final Function<OutboxMessage, String> exchange;
  private final Function<OutboxMessage, String> routingKey;
  private final String contentType;
  private final Object lock = new Object();
  private Connection connection; // guarded by lock
  private ConfirmedChannel channel; // guarded by lock
  private boolean closed; // guarded by lock

  private RabbitMqPublisher(Builder builder) {
    this.factory = builder.factory.clone();
    // Our own reconnect (at the next message) keeps delivery tags simple: a recovered channel
    // would go on with publishes whose confirmations were lost with the old one.
    this.factory.setAutomaticRecoveryEnabled(false);
    this.factory.setTopologyRecoveryEnabled(false);
    this.exchange = builder.exchange;
    this.routingKey = builder.routingKey;
    this.contentType = builder.contentType;
  }

  /** A builder publishing through connections of {@code factory} (host, credentials, TLS...). */
  public static Builder builder(ConnectionFactory factory) {
    return new Builder(factory);
  }

  @Override
  public CompletionStage<?> handle(OutboxMessage message) {
    String toExchange = Objects.requireNonNull(exchange.apply(message), "exchange of a message");
    String key = Objects.requireNonNull(routingKey.apply(message), "routing key of a message");
    Map<String, Object> headers = new HashMap<>(message.headers());
    AMQP.BasicProperties properties =
        new AMQP.BasicProperties.Builder()
            .messageId(message.id())
            .contentType(contentType)
            .deliveryMode(2)
            .timestamp(Date.from(message.createdAt()))
            .headers(headers)
            .build();
    byte[] body = message.payloadJson().getBytes(UTF_8);
    synchronized (lock) {
      if (closed) {
        return CompletableFuture.failedFuture(new PublishException("RabbitMqPublisher is closed"));
      }
      ConfirmedChannel open;
      try {
        open = openChannel();
      } catch (IOException | TimeoutException | RuntimeException e) {
        return CompletableFuture.failedFuture(
            new PublishException("cannot open a RabbitMQ channel: " + e.getMessage(), e));
      }
      return open.publish(toExchange, key, properties, body);
    }
  }

  /** Closes the channel and connection; publishes still unconfirmed fail. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      if (channel != null) {
        channel.close();
      }
      if (connection != null && connection.isOpen()) {
        try {
          connection.close();
        } catch (IOException | RuntimeException e) {
          // Best effort: a connection already lost has nothing left to close.
        }
      }
    }
  }

  private ConfirmedChannel openChannel() throws IOException, TimeoutException {
    if (channel != null && channel.isOpen()) {
      return channel;
    }
    if (channel != null) {
      channel.close();
      channel = null;
    }
    if (connection == null || !connection.isOpen()) {
      if (connection != null) {
        connection.abort();
      }
      connection = factory.newConnection("jooq-outbox publisher");
    }
    channel = new ConfirmedChannel(connection.createChannel());
    return channel;
  }

  /** Settings of a {@link RabbitMqPublisher}; every one but the factory has a default. */
  public static final class Builder {

    private final ConnectionFactory factory;
    private Function<OutboxMessage, String> exchange = OutboxMessage::topic;
    private Function<OutboxMessage, String> routingKey = OutboxMessage::aggregate;
    private String contentType = "application/json";

    private Builder(ConnectionFactory factory) {
      this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** The exchange a message goes to. Default: its topic. */
    public Builder exchange(Function<OutboxMessage, String> exchange) {
      this.exchange = Objects.requireNonNull(exchange, "exchange");
      return this;
    }

    /** The routing key of a message. Default: its aggregate. */
    public Builder routingKey(Function<OutboxMessage, String> routingKey) {
      this.routingKey = Objects.requireNonNull(routingKey, "routingKey");
      return this;
    }

    /** The content type property. Default {@code application/json}. */
    public Builder contentType(String contentType) {
      this.contentType = Objects.requireNonNull(contentType, "contentType");
      return this;
    }

    /** The publisher; it connects at its first message. */
    public RabbitMqPublisher build() {
      return new RabbitMqPublisher(this);
    }
  }
}
