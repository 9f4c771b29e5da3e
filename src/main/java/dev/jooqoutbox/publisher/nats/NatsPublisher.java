package dev.jooqoutbox.publisher.nats;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.publisher.PublishException;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamOptions;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Publishes outbox messages to NATS JetStream and settles each on the stream's {@code PublishAck}.
 *
 * <p>Each message goes to the subject the builder's function gives it (by default its topic) with
 * the header {@code Nats-Msg-Id} = outbox id, the message's headers as NATS headers (a value that
 * is not printable ASCII, which NATS headers cannot carry, as an RFC 2047 encoded word {@code
 * =?UTF-8?B?...?=}), and the payload JSON in UTF-8 as data. The stream drops a message whose id it
 * already stored within its duplicate window (2 minutes by default), acknowledging it as a
 * duplicate: a re-delivery after a lost acknowledgement or a relay crash does not store a second
 * copy. The returned stage completes normally on the {@code PublishAck}; an error from the server
 * (no stream for the subject: 503 no responders; a stream that refuses the message), a lost
 * connection, or no acknowledgement within {@link Builder#ackTimeout} completes it with a {@link
 * PublishException} carrying the reason, and the relay retries with backoff.
 *
 * <p>The connection is the application's: the client reconnects by itself, and the publisher
 * neither opens nor closes it. {@link #close()} refuses new messages and waits for those in flight,
 * like the other publishers' close, but leaves the connection open. Thread-safe.
 */
public final class NatsPublisher implements AsyncOutboxHandler, AutoCloseable {

  /** The JetStream header that carries the message id the stream deduplicates by. */
  public static final String MSG_ID_HEADER = "Nats-Msg-Id";

  private final JetStream jetStream;
  private final Function<OutboxMessage, String> subject;
  private final Duration ackTimeout;

  /** Acknowledgements awaited, so that close can wait for them. */
  private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();

  private volatile boolean closed;

  private NatsPublisher(Builder builder) throws IOException {
    this.jetStream = builder.connection.jetStream(builder.options);
    this.subject = builder.subject;
    this.ackTimeout = builder.ackTimeout;
  }

  /** A builder publishing on {@code connection}, which the application opens and closes. */
  public static Builder builder(Connection connection) {
    return new Builder(connection);
  }

  @Override
  public CompletionStage<?> handle(OutboxMessage message) {
    if (closed) {
      return CompletableFuture.failedFuture(new PublishException("NatsPublisher is closed"));
    }
    String to = Objects.requireNonNull(subject.apply(message), "subject of a message");
    Headers headers = new Headers();
    message.headers().forEach((name, value) -> headers.put(name, headerValue(value)));
    PublishOptions options = PublishOptions.builder().messageId(message.id()).build();
    CompletableFuture<PublishAck> ack;
    try {
      ack = jetStream.publishAsync(to, headers, message.payloadJson().getBytes(UTF_8), options);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(
          new PublishException("NATS publish failed: " + e.getMessage(), e));
    }
    CompletableFuture<PublishAck> awaited = ack.orTimeout(ackTimeout.toMillis(), MILLISECONDS);
    inFlight.add(awaited);
    awaited.whenComplete((value, failure) -> inFlight.remove(awaited));
    return awaited.handle(
        (value, failure) -> {
          if (failure == null) {
            return value;
          }
          Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
          throw new PublishException(
              "NATS JetStream did not acknowledge the message on subject '" + to + "': " + cause,
              cause);
        });
  }

  /**
   * Refuses new messages (their stage fails with a {@link PublishException}) and waits, at most the
   * ack timeout, for the acknowledgements of those in flight. The connection stays open: it is the
   * application's. Idempotent. Close the relay first: it waits for its messages in flight, which
   * need the publisher to settle.
   */
  @Override
  public void close() {
    closed = true;
    CompletableFuture<?>[] awaited = inFlight.toArray(CompletableFuture<?>[]::new);
    try {
      CompletableFuture.allOf(awaited).get(ackTimeout.toMillis(), MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // A failed or late acknowledgement fails its own attempt; close only bounds the wait.
    }
  }

  /**
   * NATS header values are printable ASCII only: a value with other characters goes as an RFC 2047
   * encoded word, {@code =?UTF-8?B?<base64 of its UTF-8 bytes>?=}, which MIME decoders read back.
   */
  static String headerValue(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return "=?UTF-8?B?" + Base64.getEncoder().encodeToString(value.getBytes(UTF_8)) + "?=";
      }
    }
    return value;
  }

  /** Settings of a {@link NatsPublisher}; every one but the connection has a default. */
  public static final class Builder {

    private final Connection connection;
    private Function<OutboxMessage, String> subject = OutboxMessage::topic;
    private JetStreamOptions options = JetStreamOptions.defaultOptions();
    private Duration ackTimeout = Duration.ofSeconds(10);

    private Builder(Connection connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
    }

    /** The subject of a message. Default: its topic. */
    public Builder subject(Function<OutboxMessage, String> subject) {
      this.subject = Objects.requireNonNull(subject, "subject");
      return this;
    }

    /** Options of the JetStream context (a domain or an API prefix). Default: the defaults. */
    public Builder jetStreamOptions(JetStreamOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * How long to wait for a message's {@code PublishAck} before the attempt fails (the relay
     * retries it; the stream drops the copy if the first one was stored). Default 10 s.
     */
    public Builder ackTimeout(Duration ackTimeout) {
      if (ackTimeout == null || ackTimeout.isNegative() || ackTimeout.isZero()) {
        throw new IllegalArgumentException("ackTimeout must be positive: " + ackTimeout);
      }
      this.ackTimeout = ackTimeout;
      return this;
    }

    /**
     * The publisher.
     *
     * @throws PublishException when the connection cannot make a JetStream context
     */
    public NatsPublisher build() {
      try {
        return new NatsPublisher(this);
      } catch (IOException e) {
        throw new PublishException("cannot use JetStream on this connection", e);
      }
    }
  }
}
