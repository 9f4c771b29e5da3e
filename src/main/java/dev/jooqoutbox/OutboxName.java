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
 */
public final class OutboxName {

  /** The longest name: 3 + 27 + 33 = 63 characters for the longest index name. */
  public static final int MAX_LENGTH = 27;

  private static final Pattern VALID = Pattern.compile("[a-z][a-z0-9_]*");

  /** The default outbox: tables {@code outbox_message} and {@code inbox_message}. */
  public static final OutboxName DEFAULT = new OutboxName("");

  private final String name;

  private OutboxName(String name) {
    this.name = name;
  }

  /**
   * The outbox named {@code name}.
   *
   * @throws IllegalArgumentException when {@code name} is not 1 to {@value #MAX_LENGTH} lower-case
   *     letters, digits and underscores starting with a letter
   */
  public static OutboxName of(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.length() > MAX_LENGTH || !VALID.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "invalid outbox name \""
              + printable(name)
              + "\": use 1 to "
              + MAX_LENGTH
              + " lower-case letters (a-z), digits and underscores, starting with a letter");
    }
    return new OutboxName(name);
  }

  /** The name, or the empty string for {@link #DEFAULT}. */
  public String name() {
    return name;
  }

  /** Whether this is the default outbox. */
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
    return o instanceof OutboxName other && other.name.equals(name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  @Override
  public String toString() {
    return isDefault() ? "default outbox" : "outbox " + name;
  }
}
