package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
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
          + " changes nothing. A topic no message has is refused as a likely typo, unless --force."
    })
final class PauseCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Parameters(paramLabel = "TOPIC", description = "The topic to pause.")
  String topic;

  @Option(names = "--force", description = "Pause the topic even though no message has it (yet).")
  boolean force;

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      OutboxAdmin admin = db.admin(clock());
      if (!force
          && !admin.statsByTopic().containsKey(topic)
          && !admin.pausedTopics().containsKey(topic)) {
        throw new CliException(
            "no message has topic "
                + topic
                + " (a typo?); to pause it before its first message, add --force");
      }
      boolean paused = admin.pause(topic);
      out().println((paused ? "paused topic " : "topic already paused: ") + topic);
      return 0;
    }
  }
}
