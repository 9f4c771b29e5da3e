package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxSchema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Creates or updates the outbox and inbox tables.",
      "Runs the Liquibase changelog that ships in the jar. Applied changesets are skipped, so"
          + " running it again is safe. Creates a SQLite file that does not exist yet."
    })
final class MigrateCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Option(
      names = "--dry-run",
      description = "Print the SQL the migration would run, and change nothing in the outbox.")
  boolean dryRun;

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.open(database)) {
      if (dryRun) {
        OutboxSchema.printMigration(db.dataSource(), db.name(), out());
        return 0;
      }
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
}
