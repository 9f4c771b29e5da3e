package dev.jooqoutbox.publisher.rabbitmq;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.jooqoutbox.publisher.Received;
import dev.jooqoutbox.publisher.TestBrokers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test's consumer: declares a topic exchange of its own, binds an exclusive queue to all of it
 * and records what arrives, in arrival order, on a connection straight to the broker.
 */
final class RabbitConsumer implements AutoCloseable {

  final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
  private final Connection connection;

  RabbitConsumer(String exchange) throws Exception {
    connection = factory(TestBrokers.RABBITMQ_PORT).newConnection("outbox-test-consumer");
    Channel channel = connection.createChannel();
    channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, false, true, null);
    String queue = channel.queueDeclare().getQueue();
    channel.queueBind(queue, exchange, "#");
    channel.basicConsume(queue, true, (tag, delivery) -> deliveries.add(delivery), tag -> {});
  }

  static ConnectionFactory factory(int port) {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(TestBrokers.HOST);
    factory.setPort(port);
    factory.setUsername("guest");
    factory.setPassword("guest");
    return factory;
  }

  List<Received> received() {
    return deliveries.stream().map(RabbitConsumer::received).toList();
  }

  private static Received received(Delivery d) {
    Map<String, String> headers = new HashMap<>();
    if (d.getProperties().getHeaders() != null) {
      d.getProperties().getHeaders().forEach((k, v) -> headers.put(k, String.valueOf(v)));
    }
    return new Received(d.getProperties().getMessageId(), new String(d.getBody(), UTF_8), headers);
  }

  @Override
  public void close() throws Exception {
    connection.close();
  }
}
