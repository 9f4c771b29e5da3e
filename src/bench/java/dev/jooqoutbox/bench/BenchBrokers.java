package dev.jooqoutbox.bench;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * The brokers of the publish figure: RabbitMQ and NATS on this machine (127.0.0.1, default ports),
 * a single-node KRaft Kafka broker started in this JVM, and the destinations every engine of the
 * figure publishes to: a durable RabbitMQ queue behind a fanout exchange, a file-backed JetStream
 * stream, a Kafka topic of 3 partitions whose leaders are known before anything is produced.
 */
final class BenchBrokers implements AutoCloseable {

  static final String DESTINATION = "bench.publish";
  static final String QUEUE = "bench.publish.q";
  static final String STREAM = "bench_publish";
  static final int PARTITIONS = 3;

  final ConnectionFactory rabbit = new ConnectionFactory();
  final io.nats.client.Connection nats;
  private final com.rabbitmq.client.Connection rabbitAdmin;
  private final KafkaClusterTestKit kafka;
  private final Admin kafkaAdmin;

  BenchBrokers() throws Exception {
    rabbit.setHost("127.0.0.1");
    rabbit.setUsername("guest");
    rabbit.setPassword("guest");
    rabbitAdmin = rabbit.newConnection("bench-admin");
    try (Channel ch = rabbitAdmin.createChannel()) {
      ch.exchangeDeclare(DESTINATION, BuiltinExchangeType.FANOUT, false, true, null);
      ch.queueDeclare(QUEUE, true, false, false, null);
      ch.queueBind(QUEUE, DESTINATION, "");
    }
    nats = Nats.connect("nats://127.0.0.1:4222");
    JetStreamManagement jsm = nats.jetStreamManagement();
    jsm.addStream(
        StreamConfiguration.builder()
            .name(STREAM)
            .subjects(DESTINATION)
            .storageType(StorageType.File)
            .build());
    kafka =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build())
            .build();
    kafka.format();
    kafka.startup();
    kafka.waitForReadyBrokers();
    kafkaAdmin = kafka.admin();
    kafkaAdmin
        .createTopics(List.of(new NewTopic(DESTINATION, PARTITIONS, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
    // Producing before every partition has a leader lost records with an idempotent producer.
    while (true) {
      Map<String, TopicDescription> d =
          kafkaAdmin.describeTopics(Set.of(DESTINATION)).allTopicNames().get(30, TimeUnit.SECONDS);
      if (d.get(DESTINATION).partitions().stream().allMatch(p -> p.leader() != null)) {
        break;
      }
      Thread.sleep(50);
    }
  }

  String kafkaBootstrap() {
    return kafka.bootstrapServers();
  }

  /** Empties the queue and the stream between runs, so that each starts alike. */
  void purge() throws Exception {
    try (Channel ch = rabbitAdmin.createChannel()) {
      ch.queuePurge(QUEUE);
    }
    nats.jetStreamManagement().purgeStream(STREAM);
  }

  @Override
  public void close() throws Exception {
    try (Channel ch = rabbitAdmin.createChannel()) {
      ch.queueDelete(QUEUE);
      ch.exchangeDelete(DESTINATION);
    } finally {
      rabbitAdmin.close();
      try {
        nats.jetStreamManagement().deleteStream(STREAM);
      } finally {
        nats.close();
        kafkaAdmin.close();
        kafka.close();
      }
    }
  }
}
