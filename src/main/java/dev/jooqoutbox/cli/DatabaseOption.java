package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxName;
import picocli.CommandLine.Option;

/**
 * The required {@code --db URL} of the operator commands and their {@code --outbox NAME} (a picocli
 * mixin).
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

  /** The outbox {@code --outbox} names, or the default one. */
  OutboxName name() {
    if (outbox == null) {
      return OutboxName.DEFAULT;
    }
    try {
      return OutboxName.of(outbox);
    } catch (IllegalArgumentException invalid) {
      throw new CliException("--outbox: " + invalid.getMessage());
    }
  }

  /** The options that name this database and outbox again, for a hint to run another command. */
  String again(String displayUrl) {
    return "--db "
        + CliDatabase.shellQuoted(displayUrl)
        + (outbox == null ? "" : " --outbox " + outbox);
  }
}
