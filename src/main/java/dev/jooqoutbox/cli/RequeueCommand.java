package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "requeue",
    mixinStandardHelpOptions = true,
    description = {
      "Puts dead letters back to pending, to be delivered again.",
      "Resets their attempt count and makes them available now; relays deliver them in their"
          + " original order per aggregate.",
      "Give dead letter ids, or --topic, or --all: exactly one of them.",
      "Exits 1 when an id given is not a dead letter (unknown, pending or already sent)."
    })
final class RequeueCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Selection selection;

  static final class Selection {
    @Parameters(
        paramLabel = "ID",
        arity = "1..*",
        description = "Ids of dead letters (see `outbox dead-letters`).")
    List<String> ids;

    @Option(
        names = "--topic",
        paramLabel = "TOPIC",
        description = "Requeue every dead letter of TOPIC.")
    String topic;

    @Option(names = "--all", description = "Requeue every dead letter.")
    boolean all;
  }

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      OutboxAdmin admin = db.admin(clock());
      if (selection.topic != null) {
        int count = admin.requeueTopic(selection.topic);
        out()
            .println(
                "requeued " + Plural.of(count, "dead letter") + " of topic " + selection.topic);
        return 0;
      }
      if (selection.all) {
        int count = admin.requeueAll();
        out().println("requeued " + Plural.of(count, "dead letter"));
        return 0;
      }
      int count = 0;
      List<String> notDead = new ArrayList<>();
      for (String id : new LinkedHashSet<>(selection.ids)) {
        if (admin.requeue(id)) {
          count++;
        } else {
          notDead.add(id);
        }
      }
      out().println("requeued " + Plural.of(count, "dead letter"));
      if (!notDead.isEmpty()) {
        throw new CliException(
            "not a dead letter (unknown, pending or already sent): " + String.join(", ", notDead));
      }
      return 0;
    }
  }
}
