package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxSchema;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Creates or updates the outbox and inbox tables.",
      "Runs the Liquibase changelog that ships in the jar. Applied changesets are skipped, so"
          + " running it again is safe. Creates a SQLite file that does not exist yet (except"
          + " with --dry-run)."
    })
final class MigrateCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Option(
      names = "--dry-run",
      description =
          "Print the SQL the migration would run, and change nothing: no outbox table, and no"
              + " SQLite file when it does not exist yet.")
  boolean dryRun;

  @Override
  int execute() {
    if (dryRun) {
      return printMigration();
    }
    try (CliDatabase db = CliDatabase.open(database)) {
      boolean existed = db.isMigrated();
      OutboxSchema.migrate(db.dataSource(), db.name());
      String tables = db.name().isDefault() ? "the outbox tables" : "the tables of " + db.name();
      out()
          .println(
              existed
                  ? tables + " in " + db.displayUrl() + " are up to date"
                  : "created " + tables + " in " + db.displayUrl());
      return 0;
    }
  }

  /**
   * The dry run changes nothing, a SQLite file that does not exist included: its SQL is printed
   * from an empty in-memory stand-in, after a comment that says so (the output stays a script).
   */
  private int printMigration() {
    Path missing = CliDatabase.missingSqliteFile(database);
    try (CliDatabase db =
        missing == null ? CliDatabase.open(database) : CliDatabase.openEmptyStandIn(database)) {
      if (missing != null) {
        out().println("-- There is no SQLite database at " + missing + " yet, and none was");
        out().println("-- created: this is the SQL `outbox migrate` would run on the new file.");
      }
      OutboxSchema.printMigration(db.dataSource(), db.name(), out());
      return 0;
    }
  }
}
