package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.internal.cli.JdbcUrls;
import org.jooq.SQLDialect;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The required {@code --db URL} of the operator commands and their {@code --outbox NAME} and {@code
 * --schema NAME} (a picocli mixin).
 *
 * <p>A value that cannot be right whatever the database holds (an unsupported URL, an invalid
 * outbox or schema name) is a usage error, exit code 2, like any other bad argument: {@link
 * #dialect()} and {@link #name()} throw picocli's {@link ParameterException}.
 */
final class DatabaseOption {

  /** The command this mixin belongs to, for its usage error. */
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

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

  /**
   * The outbox {@code --outbox} and {@code --schema} name, or the default one.
   *
   * @throws ParameterException when either is not a valid name
   */
  OutboxName name() {
    OutboxName name;
    try {
      name = outbox == null ? OutboxName.DEFAULT : OutboxName.of(outbox);
    } catch (IllegalArgumentException invalid) {
      throw usageError("--outbox: " + invalid.getMessage());
    }
    try {
      return schema == null ? name : name.inSchema(schema);
    } catch (IllegalArgumentException invalid) {
      throw usageError("--schema: " + invalid.getMessage());
    }
  }

  /**
   * The jOOQ dialect {@code --db} names.
   *
   * @throws ParameterException for a database the outbox does not support
   */
  SQLDialect dialect() {
    try {
      return JdbcUrls.dialect(url);
    } catch (IllegalArgumentException unsupported) {
      throw usageError(unsupported.getMessage());
    }
  }

  private ParameterException usageError(String message) {
    return new ParameterException(command.commandLine(), message);
  }

  /** The options that name this database and outbox again, for a hint to run another command. */
  String again(String displayUrl) {
    return "--db "
        + CliDatabase.shellQuoted(displayUrl)
        + (outbox == null ? "" : " --outbox " + outbox)
        + (schema == null ? "" : " --schema " + schema);
  }
}
