package dev.jooqoutbox.spring;

import dev.jooqoutbox.internal.relay.Settings;
import java.time.Duration;

/**
 * The {@code jooq-outbox.relay.*} properties: the relay that delivers messages to the application's
 * handlers. Each has the default of the matching {@link dev.jooqoutbox.relay.OutboxRelayBuilder}
 * setting: both take it from one list of the relay's settings, which the configuration metadata is
 * checked against.
 */
public class OutboxRelayProperties {

  /**
   * Whether this application runs a relay. Turn it off in services that only write messages; the
   * relay also stays off when the application has no handler.
   */
  private boolean enabled = true;

  /**
   * Whether the relay starts with the context. Off, it is built with its handlers and settings but
   * not started, for an application that delivers by calling OutboxRelay.drainOnce and
   * reconcileOnce itself (a test, or its own scheduler).
   */
  private boolean autoStart = true;

  /** Most messages one claim takes (1-10000). */
  private int batchSize = Settings.BATCH_SIZE.defaultValue();

  /** Most consecutive messages of one aggregate a claim takes as one lane (1-10000). */
  private int maxRun = Settings.MAX_RUN.defaultValue();

  /**
   * Most messages claimed and not yet settled at once (1-1000000). Unset: five batches, at least
   * 500.
   */
  private Integer maxInFlight;

  /** Handler threads: lanes of different aggregates run in parallel on them (1-1000). */
  private int concurrency = Settings.HANDLER_CONCURRENCY.defaultValue();

  /** How long a claim owns its messages before another relay may take them. */
  private Duration lease = Settings.LEASE.defaultValue();

  /** Attempts before a message is dead-lettered (at least 1). */
  private int maxAttempts = Settings.MAX_ATTEMPTS.defaultValue();

  /** Longest a handler may run before its attempt fails. */
  private Duration maxHandlingTime = Settings.MAX_HANDLING_TIME.defaultValue();

  /** Backoff before a retry: doubles from initial up to max, with jitter. */
  private final Backoff backoff = new Backoff();

  /** How long sent messages and inbox rows are kept before the purge deletes them. */
  private Duration retention = Settings.RETENTION.defaultValue();

  /** How often the relay purges. */
  private Duration purgeInterval = Settings.PURGE_INTERVAL.defaultValue();

  /** Sleep after a claim that found nothing ready. */
  private Duration pollInterval = Settings.POLL_INTERVAL.defaultValue();

  /**
   * On PostgreSQL, whether the relay LISTENs on a connection of its own and wakes at each commit of
   * a notifying writer instead of at its next poll. Ignored on other databases.
   */
  private boolean wakeUp = true;

  /** How often the backlog gauges are read from the database. */
  private Duration gaugeInterval = Settings.GAUGE_INTERVAL.defaultValue();

  /** Longest the relay's graceful stop waits for running handlers. */
  private Duration shutdownTimeout = Settings.SHUTDOWN_TIMEOUT.defaultValue();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isAutoStart() {
    return autoStart;
  }

  public void setAutoStart(boolean autoStart) {
    this.autoStart = autoStart;
  }

  public int getBatchSize() {
    return batchSize;
  }

  public void setBatchSize(int batchSize) {
    this.batchSize = batchSize;
  }

  public int getMaxRun() {
    return maxRun;
  }

  public void setMaxRun(int maxRun) {
    this.maxRun = maxRun;
  }

  public Integer getMaxInFlight() {
    return maxInFlight;
  }

  public void setMaxInFlight(Integer maxInFlight) {
    this.maxInFlight = maxInFlight;
  }

  public int getConcurrency() {
    return concurrency;
  }

  public void setConcurrency(int concurrency) {
    this.concurrency = concurrency;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public Duration getMaxHandlingTime() {
    return maxHandlingTime;
  }

  public void setMaxHandlingTime(Duration maxHandlingTime) {
    this.maxHandlingTime = maxHandlingTime;
  }

  public Backoff getBackoff() {
    return backoff;
  }

  public Duration getRetention() {
    return retention;
  }

  public void setRetention(Duration retention) {
    this.retention = retention;
  }

  public Duration getPurgeInterval() {
    return purgeInterval;
  }

  public void setPurgeInterval(Duration purgeInterval) {
    this.purgeInterval = purgeInterval;
  }

  public Duration getPollInterval() {
    return pollInterval;
  }

  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  public boolean isWakeUp() {
    return wakeUp;
  }

  public void setWakeUp(boolean wakeUp) {
    this.wakeUp = wakeUp;
  }

  public Duration getGaugeInterval() {
    return gaugeInterval;
  }

  public void setGaugeInterval(Duration gaugeInterval) {
    this.gaugeInterval = gaugeInterval;
  }

  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }

  /** The relay's retry backoff. */
  public static class Backoff {

    /** First delay before a retry. */
    private Duration initial = Settings.BACKOFF_INITIAL.defaultValue();

    /** Longest delay before a retry. */
    private Duration max = Settings.BACKOFF_MAX.defaultValue();

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }
  }
}
