package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.publisher.nats.NatsPublisher;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;

/**
 * The demo through NATS JetStream: the publishers send to the subject named like the topic, which
 * the stream {@value #STREAM} captures (created when missing); the consumer reads the messages
 * stored from now on, one unacknowledged at a time, and acknowledges a message once it is booked.
 */
final class NatsDemoBroker implements DemoBroker {

  static final String STREAM = "OUTBOX_DEMO";

  private final Connection connection;
  private final String subject;

  NatsDemoBroker(String url, String subject) throws Exception {
    this.subject = subject;
    connection =
        Nats.connect(
            new Options.Builder()
                .server(url)
                .connectionTimeout(Duration.ofSeconds(5))
                .maxReconnects(-1)
                .build());
    try {
      JetStreamManagement jsm = connection.jetStreamManagement();
      try {
        jsm.getStreamInfo(STREAM);
      } catch (JetStreamApiException e) {
        jsm.addStream(StreamConfiguration.builder().name(STREAM).subjects(subject).build());
      }
    } catch (Exception e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public AsyncOutboxHandler newPublisher() {
    return NatsPublisher.builder(connection).build();
  }

  @Override
  public void startConsumer(Delivery to) {
    Dispatcher dispatcher = connection.createDispatcher();
    ConsumerConfiguration consumer =
        ConsumerConfiguration.builder()
            .deliverPolicy(DeliverPolicy.New)
            .ackPolicy(AckPolicy.Explicit)
            // One unacknowledged message at a time: booked in stream order, per customer in order.
            .maxAckPending(1)
            .build();
    try {
      connection
          .jetStream()
          .subscribe(
              subject,
              dispatcher,
              (Message m) -> {
                try {
                  to.deliver(m.getHeaders().getFirst("Nats-Msg-Id"), m.getData());
                  m.ack();
                } catch (Exception e) {
                  m.nak();
                }
              },
              false,
              PushSubscribeOptions.builder().configuration(consumer).build());
    } catch (Exception e) {
      throw new DemoException("consuming from NATS failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
