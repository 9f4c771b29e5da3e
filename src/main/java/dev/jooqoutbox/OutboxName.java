package dev.jooqoutbox;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which outbox of a database: the default one (tables {@code outbox_message} and {@code
 * inbox_message}), or a named one whose tables are {@code NAME_outbox_message} and {@code
 * NAME_inbox_message}, created by {@link OutboxSchema#migrate(javax.sql.DataSource, OutboxName)}.
 * Several named outboxes and the default one live side by side in one database: each has its own
 * messages, inbox records, relays, purge and statistics, and its own changesets in Liquibase's
 * DATABASECHANGELOG.
 *
 * <p>A name is 1 to {@value #MAX_LENGTH} characters of lower-case ASCII letters, digits and
 * underscores, starting with a letter: so it is a valid unquoted identifier on every dialect, never
 * SQL text from the caller, and the longest name derived from it ({@code
 * ix_NAME_outbox_message_aggregate_pending}) fits PostgreSQL's 63 characters. {@link #of} refuses
 * any other name with an {@link IllegalArgumentException} saying why.
 *
 * <p>An outbox may also live in a schema of its own ({@link #inSchema}): a PostgreSQL schema, or a
 * MariaDB database, on the same connections. Its tables are then {@code SCHEMA.TABLE} in every
 * query and migration, whatever the connection's current schema; the schema must exist (it is never
 * created). SQLite has no schemas: an outbox with a schema is refused there.
 */
public final class OutboxName {

  /** The longest name: 3 + 27 + 33 = 63 characters for the longest index name. */
  public static final int MAX_LENGTH = 27;

  private static final Pattern VALID = Pattern.compile("[a-z][a-z0-9_]*");

  /** The default outbox: tables {@code outbox_message} and {@code inbox_message}. */
  public static final OutboxName DEFAULT = new OutboxName("");

  /** The longest schema name: PostgreSQL's 63 characters (MariaDB allows 64). */
  public static final int MAX_SCHEMA_LENGTH = 63;

  private final String name;
  private final String schema;

  private OutboxName(String name) {
    this(name, "");
  }

  private OutboxName(String name, String schema) {
    this.name = name;
    this.schema = schema;
  }

  /**
   * The outbox named {@code name}.
   *
   * @throws IllegalArgumentException when {@code name} is not 1 to {@value #MAX_LENGTH} lower-case
   *     letters, digits and underscores starting with a letter
   */
  public static OutboxName of(String name) {
    return new OutboxName(validated("outbox name", name, MAX_LENGTH));
  }

  /**
   * This outbox (the same tables) in the schema {@code schema}: a PostgreSQL schema or a MariaDB
   * database, which must exist. {@code OutboxName.DEFAULT.inSchema("x")} is the default tables in
   * {@code x}. Two outboxes with the same tables in two schemas never see each other's rows.
   *
   * @throws IllegalArgumentException when {@code schema} is not 1 to {@value #MAX_SCHEMA_LENGTH}
   *     lower-case letters, digits and underscores starting with a letter
   */
  public OutboxName inSchema(String schema) {
    return new OutboxName(name, validated("schema name", schema, MAX_SCHEMA_LENGTH));
  }

  private static String validated(String what, String value, int maxLength) {
    Objects.requireNonNull(value, what);
    if (value.isEmpty() || value.length() > maxLength || !VALID.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "invalid "
              + what
              + " \""
              + printable(value)
              + "\": use 1 to "
              + maxLength
              + " lower-case letters (a-z), digits and underscores, starting with a letter");
    }
    return value;
  }

  /** The schema given to {@link #inSchema}, or the empty string: the connection's current one. */
  public String schema() {
    return schema;
  }

  /** Whether {@link #inSchema} gave this outbox a schema. */
  public boolean hasSchema() {
    return !schema.isEmpty();
  }

  /** The name, or the empty string for {@link #DEFAULT}. */
  public String name() {
    return name;
  }

  /**
   * Whether this is the default outbox (tables {@code outbox_message} and {@code inbox_message}),
   * in whichever schema.
   */
  public boolean isDefault() {
    return name.isEmpty();
  }

  /** The message table: {@code outbox_message} or {@code NAME_outbox_message}. */
  public String outboxTable() {
    return prefixed("outbox_message");
  }

  /** The inbox table: {@code inbox_message} or {@code NAME_inbox_message}. */
  public String inboxTable() {
    return prefixed("inbox_message");
  }

  /**
   * The table of the topics paused by an operator: {@code outbox_paused_topic} or {@code
   * NAME_outbox_paused_topic}.
   */
  public String pausedTopicTable() {
    return prefixed("outbox_paused_topic");
  }

  private String prefixed(String table) {
    return isDefault() ? table : name + "_" + table;
  }

  // An error message shows the refused name, but never a long text or control characters whole.
  private static String printable(String name) {
    String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
    return shown.replaceAll("\\p{Cntrl}", "?");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxName other && other.name.equals(name) && other.schema.equals(schema);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, schema);
  }

  @Override
  public String toString() {
    return (isDefault() ? "default outbox" : "outbox " + name)
        + (hasSchema() ? " in schema " + schema : "");
  }
}
