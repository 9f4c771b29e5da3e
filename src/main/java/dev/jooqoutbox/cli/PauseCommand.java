package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "pause",
    mixinStandardHelpOptions = true,
    description = {
      "Pauses a topic: every relay of the outbox stops claiming its messages within one poll"
          + " interval, until `outbox resume TOPIC`.",
      "A paused topic's pending message holds its aggregate back: no newer message of the"
          + " aggregate overtakes it. Messages already claimed are delivered.",
      "Stored in the database; `outbox status` lists the paused topics. Pausing a paused topic"
          + " changes nothing."
    })
final class PauseCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Parameters(paramLabel = "TOPIC", description = "The topic to pause.")
  String topic;

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      OutboxAdmin admin = db.admin(clock());
      boolean paused = admin.pause(topic);
      out().println((paused ? "paused topic " : "topic already paused: ") + topic);
      return 0;
    }
  }
}
