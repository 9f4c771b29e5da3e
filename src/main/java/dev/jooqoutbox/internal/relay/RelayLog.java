package dev.jooqoutbox.internal.relay;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay logs under one name, {@code dev.jooqoutbox.relay.OutboxRelay}, whichever internal class
 * writes the line: operators set one logger's level, and alerts keyed on it keep working when the
 * engine's classes change.
 */
final class RelayLog {

  static final Logger LOG = LoggerFactory.getLogger("dev.jooqoutbox.relay.OutboxRelay");

  private RelayLog() {}
}
