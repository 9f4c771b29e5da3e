package dev.jooqoutbox.publisher.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.publisher.PublishException;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes outbox messages to Kafka and settles each when the broker acknowledged its record.
 *
 * <p>The producer is idempotent with {@code acks=all} (the builder sets both and refuses a
 * configuration that says otherwise). Each message becomes one record on the topic the builder's
 * function gives it (by default its outbox topic) with key = aggregate, so one aggregate stays in
 * one partition and in order; value = the payload JSON in UTF-8; headers = the message's headers
 * (values in UTF-8) plus {@value #ID_HEADER} = outbox id. The returned stage completes normally
 * only when the send's future completed successfully, that is when every in-sync replica has the
 * record; a send that fails (after the producer's own retries, within {@code delivery.timeout.ms})
 * or that cannot start (no metadata within {@code max.block.ms}) completes it with a {@link
 * PublishException}, and the relay retries with backoff.
 *
 * <p>The publisher owns its producer: thread-safe, many records in flight. Close it after the
 * relay.
 */
public final class KafkaPublisher implements AsyncOutboxHandler, AutoCloseable {

  /** The record header that carries the outbox message id, for consumers to drop copies by. */
  public static final String ID_HEADER = "outbox-id";

  private final Producer<String, byte[]> producer;
  private final Function<OutboxMessage, String> topic;

  private KafkaPublisher(Builder builder) {
    this.producer =
        new KafkaProducer<>(builder.config, new StringSerializer(), new ByteArraySerializer());
    this.topic = builder.topic;
  }

  /**
   * A builder with the producer's configuration ({@code bootstrap.servers} at least; see the Kafka
   * producer configuration). Serializers, idempotence and acks are the publisher's.
   */
  public static Builder builder(Map<String, Object> producerConfig) {
    return new Builder(producerConfig);
  }

  @Override
  public CompletionStage<?> handle(OutboxMessage message) {
    String to = Objects.requireNonNull(topic.apply(message), "topic of a message");
    List<Header> headers = new ArrayList<>();
    message.headers().forEach((k, v) -> headers.add(new RecordHeader(k, v.getBytes(UTF_8))));
    headers.add(new RecordHeader(ID_HEADER, message.id().getBytes(UTF_8)));
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            to, null, message.aggregate(), message.payloadJson().getBytes(UTF_8), headers);
    CompletableFuture<Void> sent = new CompletableFuture<>();
    try {
      producer.send(
          record,
          (metadata, failure) -> {
            if (failure == null) {
              sent.complete(null);
            } else {
              sent.completeExceptionally(
                  new PublishException(
                      "Kafka did not acknowledge the record on topic '" + to + "': " + failure,
                      failure));
            }
          });
    } catch (RuntimeException e) {
      sent.completeExceptionally(
          new PublishException("Kafka send to topic '" + to + "' failed: " + e, e));
    }
    return sent;
  }

  /** Sends what the producer buffered and closes it, waiting at most 10 s. */
  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }

  /**
   * Settings of a {@link KafkaPublisher}; every one but the producer configuration has a default.
   */
  public static final class Builder {

    private final Map<String, Object> config;
    private Function<OutboxMessage, String> topic = OutboxMessage::topic;

    private Builder(Map<String, Object> producerConfig) {
      config = new HashMap<>(Objects.requireNonNull(producerConfig, "producerConfig"));
      require(ProducerConfig.ACKS_CONFIG, "all", "-1");
      require(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      config.put(ProducerConfig.ACKS_CONFIG, "all");
      config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    }

    private void require(String key, String... allowed) {
      Object value = config.get(key);
      if (value != null && !List.of(allowed).contains(String.valueOf(value))) {
        throw new IllegalArgumentException(
            key + " must be " + allowed[0] + " for the outbox publisher: " + value);
      }
    }

    /** The Kafka topic of a message. Default: its outbox topic. */
    public Builder topic(Function<OutboxMessage, String> topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /** The publisher and its producer. */
    public KafkaPublisher build() {
      return new KafkaPublisher(this);
    }
  }
}
