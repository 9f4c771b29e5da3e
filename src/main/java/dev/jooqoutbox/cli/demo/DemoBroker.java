package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.relay.AsyncOutboxHandler;

/**
 * A broker the demo publishes through ({@code --publish}): the relays hand each order to the broker
 * with the real publisher, and a consumer of the broker inside the demo books it in the ledger
 * (inbox-guarded, so a copy the broker delivers again is dropped).
 *
 * <p>The implementations are the only demo classes that refer to a broker client, and {@link
 * DemoBrokers} loads one only when {@code --publish} names it: the CLI jar leaves the clients out.
 */
interface DemoBroker extends AutoCloseable {

  /** What the demo's consumer calls for each message it receives from the broker. */
  @FunctionalInterface
  interface Delivery {
    /** Books the message; throws when it could not (the consumer then has it delivered again). */
    void deliver(String messageId, byte[] payloadJson) throws Exception;
  }

  /** A new publisher for one relay; closed with the broker. */
  AsyncOutboxHandler newPublisher();

  /** Starts consuming what the publishers send, from now on, handing each message to {@code to}. */
  void startConsumer(Delivery to);

  /** Stops the consumer and closes the publishers and connections. */
  @Override
  void close();
}
