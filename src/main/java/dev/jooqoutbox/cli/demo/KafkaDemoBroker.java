package dev.jooqoutbox.cli.demo;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.jooqoutbox.publisher.kafka.KafkaPublisher;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The demo through Kafka: the publishers send to the Kafka topic named like the outbox topic
 * (created with {@value #PARTITIONS} partitions when missing; the key is the customer, so each
 * customer's orders stay in one partition); the consumer reads every partition from the end it had
 * when the demo started, record by record.
 */
final class KafkaDemoBroker implements DemoBroker {

  static final int PARTITIONS = 3;
  private static final int TIMEOUT_MILLIS = 5000;

  private final String bootstrap;
  private final String topic;
  private final List<KafkaPublisher> publishers = new ArrayList<>();
  private volatile boolean closed;
  private Thread consuming;

  KafkaDemoBroker(String bootstrap, String topic) throws Exception {
    this.bootstrap = bootstrap;
    this.topic = topic;
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MILLIS,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MILLIS))) {
      admin.describeCluster().nodes().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      try {
        admin
            .createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
            .all()
            .get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      awaitLeaders(admin);
    }
  }

  /** Producing before every partition has a leader can lose records of an idempotent producer. */
  private void awaitLeaders(Admin admin) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS * 4L);
    while (!admin
        .describeTopics(Set.of(topic))
        .allTopicNames()
        .get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
        .get(topic)
        .partitions()
        .stream()
        .allMatch(p -> p.leader() != null)) {
      if (System.nanoTime() > deadline) {
        throw new DemoException("Kafka topic " + topic + " has partitions without a leader");
      }
      Thread.sleep(50);
    }
  }

  @Override
  public synchronized AsyncOutboxHandler newPublisher() {
    KafkaPublisher publisher =
        KafkaPublisher.builder(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.LINGER_MS_CONFIG, 5,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, TIMEOUT_MILLIS))
            .build();
    publishers.add(publisher);
    return publisher;
  }

  @Override
  public void startConsumer(Delivery to) {
    KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "false"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      partitions.add(new TopicPartition(topic, p));
    }
    consumer.assign(partitions);
    // From the end as it is now (a previous run's records stay in the topic); position() fixes it.
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position);
    consuming = new Thread(() -> consume(consumer, to), "demo-kafka-consumer");
    consuming.setDaemon(true);
    consuming.start();
  }

  private void consume(KafkaConsumer<String, byte[]> consumer, Delivery to) {
    try (consumer) {
      while (!closed) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          // A record that could not be booked is tried again before the next one: in order.
          while (!deliver(r, to) && !closed) {
            pause();
          }
        }
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean deliver(ConsumerRecord<String, byte[]> r, Delivery to) {
    Header id = r.headers().lastHeader(KafkaPublisher.ID_HEADER);
    try {
      to.deliver(id == null ? null : new String(id.value(), UTF_8), r.value());
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    publishers.forEach(KafkaPublisher::close);
    if (consuming != null) {
      try {
        consuming.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
