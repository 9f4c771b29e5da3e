package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.PurgeResult;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "purge",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes old sent messages and inbox rows.",
      "Deletes sent outbox messages and inbox rows older than a retention, in batches (each its"
          + " own short transaction). Pending messages and dead letters are never deleted.",
      "Keep the retention longer than the longest time a duplicate can still arrive at a"
          + " consumer: the inbox drops a duplicate only while it remembers the message.",
      "--dry-run counts what it would delete now and deletes nothing."
    })
final class PurgeCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Option(
      names = "--older-than",
      paramLabel = "AGE",
      defaultValue = "7d",
      converter = Durations.Converter.class,
      description = "Retention: 30s, 15m, 12h, 7d (default: ${DEFAULT-VALUE}).")
  Duration olderThan;

  @Option(
      names = "--batch-size",
      paramLabel = "N",
      defaultValue = "1000",
      description = "Rows deleted per statement (default: ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(
      names = "--dry-run",
      description = "Print how many rows a purge would delete now, and delete nothing.")
  boolean dryRun;

  @Override
  int execute() {
    if (batchSize < 1) {
      throw new ParameterException(spec.commandLine(), "--batch-size must be at least 1");
    }
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      Instant now = clock().instant();
      Instant cutoff = now.minus(olderThan);
      OutboxAdmin admin = db.admin(fixedAt(now));
      PurgeResult purged = dryRun ? admin.purgeCount(olderThan) : admin.purge(olderThan, batchSize);
      out()
          .println(
              (dryRun ? "would purge " : "purged ")
                  + Plural.of(purged.outboxDeleted(), "sent outbox message")
                  + " and "
                  + Plural.of(purged.inboxDeleted(), "inbox row")
                  + " older than "
                  + Durations.format(olderThan)
                  + " (before "
                  + cutoff.truncatedTo(ChronoUnit.SECONDS)
                  + "); dead letters are kept"
                  + (dryRun ? " (dry run: nothing was deleted)" : ""));
      return 0;
    }
  }
}
