package dev.jooqoutbox.spring;

import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutboxRelayBuilder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;

/**
 * The auto-configured relay's life in the application context. Built once every singleton exists
 * (so a wrong handler or property stops the startup before anything runs), started with the other
 * lifecycle beans when the context is refreshed, and stopped gracefully when the context closes:
 * running handlers finish, the rest of the claimed messages is given back, within {@code
 * jooq-outbox.relay.shutdown-timeout}. Lifecycle beans stop before any singleton is destroyed, so
 * the relay is closed before the DataSource it uses.
 *
 * <p>Phase {@value #PHASE}: it starts after, and stops before, the beans of lower phases, among
 * them the web server and its graceful shutdown ({@code Integer.MAX_VALUE - 1024} and {@code -
 * 2048}); handlers therefore never run while the rest of the application is not yet up or already
 * stopping.
 */
final class OutboxRelayLifecycle
    implements SmartInitializingSingleton, SmartLifecycle, DisposableBean {

  /** Late start, early stop. */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

  private static final Logger log = LoggerFactory.getLogger(OutboxRelayLifecycle.class);

  private final boolean autoStartup;
  private final Supplier<OutboxRelayBuilder> builders;
  private boolean prepared;
  private OutboxRelayBuilder builder;
  private volatile OutboxRelay relay;
  private volatile boolean running;

  /**
   * @param autoStartup whether the relay starts with the context ({@code
   *     jooq-outbox.relay.auto-start}); else it is built and waits for drainOnce calls
   * @param builders the relay's builder with its settings, handlers and customizers applied, asked
   *     once, when every singleton exists
   */
  OutboxRelayLifecycle(boolean autoStartup, Supplier<OutboxRelayBuilder> builders) {
    this.autoStartup = autoStartup;
    this.builders = builders;
  }

  @Override
  public void afterSingletonsInstantiated() {
    prepare();
  }

  /** Finds the handlers and builds the relay, once; null when the context has no handler. */
  private synchronized OutboxRelayBuilder prepare() {
    if (prepared) {
      return builder;
    }
    prepared = true;
    OutboxRelayBuilder b = builders.get();
    try {
      relay = b.build();
    } catch (IllegalArgumentException e) {
      if (String.valueOf(e.getMessage()).startsWith("handlers:")) { // the builder has none
        log.info(
            "jooq-outbox: no @OutboxListener, handler bean or customizer registers a handler; the"
                + " relay does not run");
        return null;
      }
      throw RelaySettings.inPropertyNames(e);
    }
    builder = b;
    log.info("jooq-outbox: relay built for topics {}", relay.topics());
    return b;
  }

  private static OutboxRelay build(OutboxRelayBuilder builder) {
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw RelaySettings.inPropertyNames(e);
    }
  }

  /** The relay, or null when the context has no handler or the relay was stopped. */
  OutboxRelay relay() {
    return relay;
  }

  /**
   * The relay for injection: built now if the context asks for it before every singleton exists.
   *
   * @throws IllegalStateException when the context has no handler, or the relay was stopped
   */
  synchronized OutboxRelay injectable() {
    if (prepare() == null) {
      throw new IllegalStateException(
          "jooq-outbox: there is no relay to inject: no @OutboxListener, handler bean or"
              + " customizer registers a handler");
    }
    if (relay == null) {
      throw new IllegalStateException(
          "jooq-outbox: the relay was stopped with the context; a started context has a new one");
    }
    return relay;
  }

  @Override
  public synchronized void start() {
    OutboxRelayBuilder b = prepare();
    if (b == null || running) {
      return;
    }
    if (relay == null) { // stopped before: a closed relay does not start again
      relay = build(b);
    }
    relay.start();
    running = true;
  }

  @Override
  public synchronized void stop() {
    if (running) {
      relay.close();
      relay = null;
      running = false;
    }
  }

  /**
   * A context whose refresh failed is destroyed without being stopped; a relay that was never
   * started (auto-start off) is closed here too.
   */
  @Override
  public synchronized void destroy() {
    stop();
    if (relay != null) {
      relay.close();
      relay = null;
    }
  }

  @Override
  public boolean isAutoStartup() {
    return autoStartup;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
