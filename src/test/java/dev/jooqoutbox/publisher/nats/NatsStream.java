package dev.jooqoutbox.publisher.nats;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.jooqoutbox.publisher.Received;
import dev.jooqoutbox.publisher.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A test's stream: one memory stream of its own capturing one subject, read back in stream order on
 * a connection straight to the server, and deleted at the end.
 */
final class NatsStream implements AutoCloseable {

  private final Connection connection;
  private final JetStreamManagement management;
  private final String name;

  NatsStream(String name, String subject) throws Exception {
    this.name = name;
    connection = Nats.connect(TestBrokers.natsUrl(TestBrokers.NATS_PORT));
    management = connection.jetStreamManagement();
    management.addStream(
        StreamConfiguration.builder()
            .name(name)
            .subjects(subject)
            .storageType(StorageType.Memory)
            .build());
  }

  /** Everything the stream stored, in stream order. */
  List<Received> received() throws Exception {
    long last = management.getStreamInfo(name).getStreamState().getLastSequence();
    List<Received> received = new ArrayList<>();
    for (long seq = 1; seq <= last; seq++) {
      MessageInfo m = management.getMessage(name, seq);
      Map<String, String> headers = new HashMap<>();
      String id = null;
      for (String key : m.getHeaders().keySet()) {
        if (key.equals(NatsPublisher.MSG_ID_HEADER)) {
          id = m.getHeaders().getFirst(key);
        } else {
          headers.put(key, decoded(m.getHeaders().getFirst(key)));
        }
      }
      received.add(new Received(id, new String(m.getData(), UTF_8), headers));
    }
    return received;
  }

  /** A value the publisher sent as an RFC 2047 encoded word, as a consumer decodes it. */
  private static String decoded(String value) {
    if (value.startsWith("=?UTF-8?B?") && value.endsWith("?=")) {
      return new String(Base64.getDecoder().decode(value.substring(10, value.length() - 2)), UTF_8);
    }
    return value;
  }

  /** A received list that swallows the checked exceptions, for awaiting. */
  List<Received> receivedNow() {
    try {
      return received();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws Exception {
    try {
      management.deleteStream(name);
    } finally {
      connection.close();
    }
  }
}
