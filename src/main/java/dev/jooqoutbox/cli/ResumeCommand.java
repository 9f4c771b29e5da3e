package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description = {
      "Resumes a paused topic: every relay of the outbox claims its messages again within one poll"
          + " interval.",
      "Resuming a topic that is not paused changes nothing."
    })
final class ResumeCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Parameters(paramLabel = "TOPIC", description = "The topic to resume.")
  String topic;

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      OutboxAdmin admin = db.admin(clock());
      boolean resumed = admin.resume(topic);
      out().println((resumed ? "resumed topic " : "topic was not paused: ") + topic);
      return 0;
    }
  }
}
