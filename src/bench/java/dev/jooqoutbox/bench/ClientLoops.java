package dev.jooqoutbox.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.PublishOptions;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Each broker client's own best confirmed loop over the same messages as the relay sends (same body
 * size, same properties): pipelined, with every confirmation waited for, no database. The window of
 * 1,000 unconfirmed messages is the fastest of those the issue measured here.
 */
final class ClientLoops {

  static final int WINDOW = 1_000;

  private ClientLoops() {}

  static byte[] body(int n) {
    return ("{\"note\": \"benchmark payload\", \"amount\": \"12.50\", \"orderId\": "
            + n
            + ", \"customer\": \"c-"
            + (n % 1000)
            + "\"}")
        .getBytes(UTF_8);
  }

  /** RabbitMQ: async confirms, persistent and mandatory like the publisher; msg/s. */
  static double rabbitMq(BenchBrokers brokers, int count, String tag) throws Exception {
    try (Connection c = brokers.rabbit.newConnection("bench-client-loop");
        Channel ch = c.createChannel()) {
      ch.confirmSelect();
      Semaphore window = new Semaphore(WINDOW);
      ConcurrentNavigableMap<Long, Boolean> pending = new ConcurrentSkipListMap<>();
      CountDownLatch done = new CountDownLatch(count);
      AtomicReference<String> failure = new AtomicReference<>();
      ch.addConfirmListener(
          (tag1, multiple) -> release(pending, tag1, multiple, window, done),
          (tag1, multiple) -> {
            failure.set("nack");
            release(pending, tag1, multiple, window, done);
          });
      long t0 = System.nanoTime();
      for (int i = 0; i < count; i++) {
        window.acquire();
        pending.put(ch.getNextPublishSeqNo(), true);
        AMQP.BasicProperties props =
            new AMQP.BasicProperties.Builder()
                .messageId(tag + "-" + i)
                .contentType("application/json")
                .deliveryMode(2)
                .headers(Map.of())
                .build();
        ch.basicPublish(BenchBrokers.DESTINATION, "order-" + (i % 1000), true, props, body(i));
      }
      await(done);
      double rate = count / ((System.nanoTime() - t0) / 1e9);
      if (failure.get() != null) {
        throw new IllegalStateException("RabbitMQ client loop: " + failure.get());
      }
      return rate;
    }
  }

  private static void release(
      ConcurrentNavigableMap<Long, Boolean> pending,
      long tag,
      boolean multiple,
      Semaphore window,
      CountDownLatch done) {
    var settled = multiple ? pending.headMap(tag, true) : pending.subMap(tag, true, tag, true);
    int n = settled.size();
    settled.clear();
    window.release(n);
    for (int i = 0; i < n; i++) {
      done.countDown();
    }
  }

  /** NATS JetStream: publishAsync with a Nats-Msg-Id, a window of acks; msg/s. */
  static double nats(BenchBrokers brokers, int count, String tag) throws Exception {
    JetStream js = brokers.nats.jetStream();
    Semaphore window = new Semaphore(WINDOW);
    CountDownLatch done = new CountDownLatch(count);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < count; i++) {
      window.acquire();
      js.publishAsync(
              BenchBrokers.DESTINATION,
              null,
              body(i),
              PublishOptions.builder().messageId(tag + "-" + i).build())
          .whenComplete(
              (ack, e) -> {
                if (e != null) {
                  failure.set(e);
                }
                window.release();
                done.countDown();
              });
    }
    await(done);
    double rate = count / ((System.nanoTime() - t0) / 1e9);
    if (failure.get() != null) {
      throw new IllegalStateException("NATS client loop", failure.get());
    }
    return rate;
  }

  /** Kafka: the same producer settings as the publisher, callbacks counted; msg/s. */
  static double kafka(BenchBrokers brokers, int count, String tag) throws Exception {
    CountDownLatch done = new CountDownLatch(count);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            PublishBench.kafkaConfig(brokers), new StringSerializer(), new ByteArraySerializer())) {
      long t0 = System.nanoTime();
      for (int i = 0; i < count; i++) {
        producer.send(
            new ProducerRecord<>(BenchBrokers.DESTINATION, "order-" + (i % 1000), body(i)),
            (meta, e) -> {
              if (e != null) {
                failure.set(e);
              }
              done.countDown();
            });
      }
      await(done);
      double rate = count / ((System.nanoTime() - t0) / 1e9);
      if (failure.get() != null) {
        throw new IllegalStateException("Kafka client loop", failure.get());
      }
      return rate;
    }
  }

  private static void await(CountDownLatch done) throws InterruptedException {
    if (!done.await(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException("confirmations missing: " + done.getCount());
    }
  }
}
