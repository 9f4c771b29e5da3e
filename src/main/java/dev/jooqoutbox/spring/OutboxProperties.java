package dev.jooqoutbox.spring;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxName;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code jooq-outbox.*} properties. Each relay property has the default of the matching {@link
 * dev.jooqoutbox.relay.OutboxRelayBuilder} setting; an invalid value stops the application at
 * startup with a message naming the property.
 */
@ConfigurationProperties(prefix = OutboxProperties.PREFIX)
public class OutboxProperties {

  /** The prefix of every property of the outbox. */
  public static final String PREFIX = "jooq-outbox";

  private final Write write = new Write();

  @NestedConfigurationProperty
  private final OutboxRelayProperties relay = new OutboxRelayProperties();

  private final Schema schema = new Schema();
  private final Health health = new Health();
  private final Console console = new Console();

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

  public OutboxRelayProperties getRelay() {
    return relay;
  }

  public Schema getSchema() {
    return schema;
  }

  public Health getHealth() {
    return health;
  }

  public Console getConsole() {
    return console;
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

    /**
     * The indicator is DOWN when there are more dead letters than this; unset (the default), dead
     * letters never take it DOWN: one bad message should not take a service out of its load
     * balancer. They are a gauge and a console view either way.
     */
    private Long maxDeadLetters;

    public Duration getMaxPendingAge() {
      return maxPendingAge;
    }

    public void setMaxPendingAge(Duration maxPendingAge) {
      this.maxPendingAge = maxPendingAge;
    }

    public Long getMaxDeadLetters() {
      return maxDeadLetters;
    }

    public void setMaxDeadLetters(Long maxDeadLetters) {
      this.maxDeadLetters = maxDeadLetters;
    }
  }

  /** The operator console on the management server (docs/console.md). */
  public static class Console {

    /** Whether the console is served on the management server, under the Actuator's base path. */
    private boolean enabled = false;

    /** Whether the console may requeue, resolve, pause and resume. */
    private boolean actions = false;

    /** Whether the console shows a message's payload (payloads carry personal data). */
    private boolean showPayloads = false;

    /** How often the console samples the backlog for its chart, 1s to 5m. */
    private Duration sampleEvery = Duration.ofSeconds(15);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isActions() {
      return actions;
    }

    public void setActions(boolean actions) {
      this.actions = actions;
    }

    public boolean isShowPayloads() {
      return showPayloads;
    }

    public void setShowPayloads(boolean showPayloads) {
      this.showPayloads = showPayloads;
    }

    public Duration getSampleEvery() {
      return sampleEvery;
    }

    public void setSampleEvery(Duration sampleEvery) {
      this.sampleEvery = sampleEvery;
    }
  }
}
