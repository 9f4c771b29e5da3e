package dev.jooqoutbox.cli.demo;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.jooqoutbox.publisher.rabbitmq.RabbitMqPublisher;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo through RabbitMQ: the publishers send to the topic exchange named like the topic (the
 * publisher's default); the consumer reads an exclusive queue bound to all of it, one message at a
 * time in queue order, and acknowledges a message once it is booked.
 */
final class RabbitMqDemoBroker implements DemoBroker {

  private static final int CONNECT_TIMEOUT_MILLIS = 5000;

  private final ConnectionFactory factory = new ConnectionFactory();
  private final Connection connection;
  private final Channel channel;
  private final String queue;
  private final List<RabbitMqPublisher> publishers = new ArrayList<>();

  RabbitMqDemoBroker(String uri, String topic) throws Exception {
    factory.setUri(uri);
    factory.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
    connection = factory.newConnection("outbox-demo-consumer");
    channel = connection.createChannel();
    channel.exchangeDeclare(topic, BuiltinExchangeType.TOPIC, false, false, null);
    queue = channel.queueDeclare().getQueue();
    channel.queueBind(queue, topic, "#");
  }

  @Override
  public synchronized AsyncOutboxHandler newPublisher() {
    RabbitMqPublisher publisher = RabbitMqPublisher.builder(factory).build();
    publishers.add(publisher);
    return publisher;
  }

  @Override
  public void startConsumer(Delivery to) {
    try {
      // One unacknowledged message at a time: booked in queue order, so per customer in order.
      channel.basicQos(1);
      channel.basicConsume(
          queue,
          false,
          (tag, d) -> {
            long deliveryTag = d.getEnvelope().getDeliveryTag();
            try {
              to.deliver(d.getProperties().getMessageId(), d.getBody());
              channel.basicAck(deliveryTag, false);
            } catch (Exception e) {
              // Back to the head of the queue: delivered again, still before the later messages.
              channel.basicNack(deliveryTag, false, true);
            }
          },
          tag -> {});
    } catch (java.io.IOException e) {
      throw new DemoException("consuming from RabbitMQ failed: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    publishers.forEach(RabbitMqPublisher::close);
    try {
      connection.close();
    } catch (Exception e) {
      // Closing at the end of the run; the broker drops the exclusive queue either way.
    }
  }
}
