package dev.jooqoutbox.cli;

import picocli.CommandLine.Option;

/** The required {@code --db URL} of the operator commands (a picocli mixin). */
final class DatabaseOption {

  @Option(
      names = "--db",
      required = true,
      paramLabel = "URL",
      description =
          "JDBC URL of the database: jdbc:postgresql://..., jdbc:mariadb://...,"
              + " jdbc:mysql://... or jdbc:sqlite:FILE.")
  String url;
}
