package dev.jooqoutbox.spring;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxName;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code jooq-outbox.*} properties. Each relay property has the default of the matching {@link
 * dev.jooqoutbox.relay.OutboxRelay.Builder} setting; an invalid value stops the application at
 * startup with a message naming the property.
 */
@ConfigurationProperties(prefix = OutboxProperties.PREFIX)
public class OutboxProperties {

  /** The prefix of every property of the outbox. */
  public static final String PREFIX = "jooq-outbox";

  private final Write write = new Write();
  private final Relay relay = new Relay();
  private final Schema schema = new Schema();
  private final Health health = new Health();

  /**
   * Which outbox of the database the application writes to, relays, migrates and reports on: a
   * named one (tables NAME_outbox_message and NAME_inbox_message, see {@link
   * dev.jooqoutbox.OutboxName}), or the default one when unset.
   */
  private String name;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  /**
   * The outbox {@link #getName} names, or the default one, in the schema {@code
   * jooq-outbox.schema.name} names if set.
   *
   * @throws IllegalStateException naming the property when the name is invalid
   */
  OutboxName outboxName() {
    OutboxName outbox;
    try {
      outbox = name == null || name.isEmpty() ? OutboxName.DEFAULT : OutboxName.of(name);
    } catch (IllegalArgumentException e) {
      // Without the cause: the root cause is what Spring reports, and it should name the property.
      throw new IllegalStateException(PREFIX + ".name: " + e.getMessage());
    }
    String in = schema.getName();
    try {
      return in == null || in.isEmpty() ? outbox : outbox.inSchema(in);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(PREFIX + ".schema.name: " + e.getMessage());
    }
  }

  public Write getWrite() {
    return write;
  }

  public Relay getRelay() {
    return relay;
  }

  public Schema getSchema() {
    return schema;
  }

  public Health getHealth() {
    return health;
  }

  /** The writer's side: the {@code Outbox} bean. */
  public static class Write {

    /** Largest payload, in bytes of UTF-8 JSON. */
    private int maxPayloadBytes = Outbox.DEFAULT_MAX_PAYLOAD_BYTES;

    /**
     * Whether a committed write wakes relays at once: those of this application right after
     * Spring's commit, on PostgreSQL also those of other processes (one coalesced NOTIFY).
     */
    private boolean notifyRelays = true;

    public int getMaxPayloadBytes() {
      return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
    }

    public boolean isNotifyRelays() {
      return notifyRelays;
    }

    public void setNotifyRelays(boolean notifyRelays) {
      this.notifyRelays = notifyRelays;
    }
  }

  /** The relay that delivers messages to the application's handlers. */
  public static class Relay {

    /**
     * Whether this application runs a relay. Turn it off in services that only write messages; the
     * relay also stays off when the application has no handler.
     */
    private boolean enabled = true;

    /** Most messages one claim takes (1-10000). */
    private int batchSize = 100;

    /** Most consecutive messages of one aggregate a claim takes as one lane (1-10000). */
    private int maxRun = 10;

    /** Most messages claimed and not yet settled at once (1-1000000). */
    private int maxInFlight = 500;

    /** Handler threads: lanes of different aggregates run in parallel on them (1-1000). */
    private int concurrency = 4;

    /** How long a claim owns its messages before another relay may take them. */
    private Duration lease = Duration.ofSeconds(30);

    /** Attempts before a message is dead-lettered (at least 1). */
    private int maxAttempts = 10;

    /** Longest a handler may run before its attempt fails. */
    private Duration maxHandlingTime = Duration.ofMinutes(5);

    /** Backoff before a retry: doubles from initial up to max, with jitter. */
    private final Backoff backoff = new Backoff();

    /** How long sent messages and inbox rows are kept before the purge deletes them. */
    private Duration retention = Duration.ofDays(7);

    /** How often the relay purges. */
    private Duration purgeInterval = Duration.ofHours(1);

    /** Sleep after a claim that found nothing ready. */
    private Duration pollInterval = Duration.ofMillis(500);

    /**
     * On PostgreSQL, whether the relay LISTENs on a connection of its own and wakes at each commit
     * of a notifying writer instead of at its next poll. Ignored on other databases.
     */
    private boolean wakeUp = true;

    /** How often the backlog gauges are read from the database. */
    private Duration gaugeInterval = Duration.ofSeconds(5);

    /** Longest the relay's graceful stop waits for running handlers. */
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
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

    public int getMaxInFlight() {
      return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
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
  }

  /** The relay's retry backoff. */
  public static class Backoff {

    /** First delay before a retry. */
    private Duration initial = Duration.ofSeconds(1);

    /** Longest delay before a retry. */
    private Duration max = Duration.ofMinutes(5);

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

  /** Who creates the outbox tables. */
  public static class Schema {

    /**
     * When the outbox runs its own Liquibase changelog at startup, after the application's
     * Liquibase (if any): AUTO when its tables are missing, ALWAYS at every start (applied
     * changesets are skipped), NEVER (the application's Liquibase includes the changelog).
     */
    private Migrate migrate = Migrate.AUTO;

    /**
     * The PostgreSQL schema (MariaDB database) the outbox's tables are in, which must exist (see
     * {@link dev.jooqoutbox.OutboxName#inSchema}); unset: the connection's current one. Not on
     * SQLite.
     */
    private String name;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Migrate getMigrate() {
      return migrate;
    }

    public void setMigrate(Migrate migrate) {
      this.migrate = migrate;
    }
  }

  /** When the outbox runs its own changelog at startup. */
  public enum Migrate {
    /** When the outbox tables are missing after the application's own migrations ran. */
    AUTO,
    /** At every start: applied changesets are skipped, Liquibase's lock serializes instances. */
    ALWAYS,
    /** Never: the application's Liquibase includes the changelog. */
    NEVER
  }

  /** The Actuator health indicator {@code outbox}. */
  public static class Health {

    /** The indicator is DOWN when the oldest pending message has waited longer than this. */
    private Duration maxPendingAge = Duration.ofMinutes(5);

    /** The indicator is DOWN when there are more dead letters than this. */
    private long maxDeadLetters = 0;

    public Duration getMaxPendingAge() {
      return maxPendingAge;
    }

    public void setMaxPendingAge(Duration maxPendingAge) {
      this.maxPendingAge = maxPendingAge;
    }

    public long getMaxDeadLetters() {
      return maxDeadLetters;
    }

    public void setMaxDeadLetters(long maxDeadLetters) {
      this.maxDeadLetters = maxDeadLetters;
    }
  }
}
