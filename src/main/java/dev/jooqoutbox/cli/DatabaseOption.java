package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxName;
import picocli.CommandLine.Option;

/**
 * The required {@code --db URL} of the operator commands and their {@code --outbox NAME} and {@code
 * --schema NAME} (a picocli mixin).
 */
final class DatabaseOption {

  @Option(
      names = "--db",
      required = true,
      paramLabel = "URL",
      description =
          "JDBC URL of the database: jdbc:postgresql://..., jdbc:mariadb://...,"
              + " jdbc:mysql://... or jdbc:sqlite:FILE.")
  String url;

  @Option(
      names = "--outbox",
      paramLabel = "NAME",
      description =
          "Work on the named outbox NAME (tables NAME_outbox_message and NAME_inbox_message)"
              + " instead of the default one.")
  String outbox;

  @Option(
      names = "--schema",
      paramLabel = "NAME",
      description =
          "The outbox's tables are in the PostgreSQL schema (MariaDB database) NAME, which must"
              + " exist, instead of the connection's current one. Not on SQLite.")
  String schema;

  /** The outbox {@code --outbox} and {@code --schema} name, or the default one. */
  OutboxName name() {
    OutboxName name;
    try {
      name = outbox == null ? OutboxName.DEFAULT : OutboxName.of(outbox);
    } catch (IllegalArgumentException invalid) {
      throw new CliException("--outbox: " + invalid.getMessage());
    }
    try {
      return schema == null ? name : name.inSchema(schema);
    } catch (IllegalArgumentException invalid) {
      throw new CliException("--schema: " + invalid.getMessage());
    }
  }

  /** The options that name this database and outbox again, for a hint to run another command. */
  String again(String displayUrl) {
    return "--db "
        + CliDatabase.shellQuoted(displayUrl)
        + (outbox == null ? "" : " --outbox " + outbox)
        + (schema == null ? "" : " --schema " + schema);
  }
}
