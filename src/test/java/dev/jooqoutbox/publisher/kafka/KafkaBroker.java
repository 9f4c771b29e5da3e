package dev.jooqoutbox.publisher.kafka;

import dev.jooqoutbox.publisher.TcpProxy;
import dev.jooqoutbox.publisher.TestBrokers;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real single-node KRaft Kafka broker (combined broker and controller) in the test JVM, from the
 * Kafka project's test kit: Kafka is not installed on the machines and there is no Docker. Public
 * for the demo's test of {@code --publish kafka}.
 */
public final class KafkaBroker implements AutoCloseable {

  private final TcpProxy proxy;
  private final KafkaClusterTestKit cluster;
  private final Admin admin;

  /**
   * The broker advertises a {@link TcpProxy} in front of its listener, so that every client
   * connection (after the bootstrap) goes through it and a test can cut them all.
   */
  public KafkaBroker() throws Exception {
    proxy = new TcpProxy(TestBrokers.HOST, 1);
    cluster =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setPerServerProperties(
                        Map.of(
                            0,
                            Map.of(
                                "advertised.listeners",
                                "EXTERNAL://" + TestBrokers.HOST + ":" + proxy.port())))
                    .build())
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            .build();
    cluster.format();
    cluster.startup();
    String bootstrap = cluster.bootstrapServers();
    proxy.retarget(Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1)));
    cluster.waitForReadyBrokers();
    admin = cluster.admin();
  }

  /** The proxy every client connection goes through. */
  TcpProxy proxy() {
    return proxy;
  }

  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /**
   * Creates {@code topic} and waits until every partition has a leader: producing before that lost
   * records with an idempotent producer (the futures failed only after the delivery timeout).
   */
  void createTopic(String topic, int partitions) throws Exception {
    admin
        .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      List<TopicPartitionInfo> parts = partitionsOf(topic);
      if (parts.size() == partitions && parts.stream().allMatch(p -> p.leader() != null)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("partitions of " + topic + " without a leader: " + parts);
      }
      Thread.sleep(50);
    }
  }

  /**
   * The partitions the broker knows of {@code topic}; none while the controller's record of the new
   * topic has not reached the broker yet, which answers "does not host this topic-partition" until
   * then (seen on a machine whose two cores were busy).
   */
  private List<TopicPartitionInfo> partitionsOf(String topic) throws Exception {
    try {
      Map<String, TopicDescription> described =
          admin.describeTopics(Set.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
      return described.get(topic).partitions();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return List.of();
      }
      throw e;
    }
  }

  /** Closes the admin client and shuts the broker down, deleting its log directories. */
  @Override
  public void close() throws Exception {
    try {
      admin.close();
      cluster.close();
    } finally {
      proxy.close();
    }
  }
}
