package dev.jooqoutbox.publisher.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.jooqoutbox.publisher.Received;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads back every record of a topic, partition by partition in offset order. */
final class KafkaConsumerReader {

  private KafkaConsumerReader() {}

  /** The records of {@code topic}'s {@code partitions}, each partition's in offset order. */
  static List<Received> readAll(String bootstrap, String topic, int partitions) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<Received> received = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(new TopicPartition(topic, p));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Map<TopicPartition, Long> end = consumer.endOffsets(all);
      while (all.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          received.add(received(r));
        }
      }
    }
    return received;
  }

  private static Received received(ConsumerRecord<String, byte[]> r) {
    Map<String, String> headers = new HashMap<>();
    String id = null;
    for (Header h : r.headers()) {
      String value = new String(h.value(), UTF_8);
      if (h.key().equals(KafkaPublisher.ID_HEADER)) {
        id = value;
      } else {
        headers.put(h.key(), value);
      }
    }
    return new Received(id, new String(r.value(), UTF_8), headers);
  }
}
