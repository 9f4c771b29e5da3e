package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.Resolution;
import java.util.Locale;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "resolve",
    mixinStandardHelpOptions = true,
    description = {
      "Resolves a message whose outcome is unknown (see `outbox unknown`), unblocking its"
          + " aggregate.",
      "--sent: the remote system did receive it. --retry: it did not; deliver it again now (the"
          + " unknown attempt does not count). --dead: give up; it becomes a dead letter.",
      "Resolving again the same way succeeds and changes nothing. Exits 1 when the message does"
          + " not exist, or is not outcome-unknown and was resolved another way (or never was"
          + " unknown)."
    })
final class ResolveCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Parameters(paramLabel = "ID", description = "Id of the message (see `outbox unknown`).")
  String id;

  @ArgGroup(exclusive = true, multiplicity = "1")
  How how;

  static final class How {
    @Option(names = "--sent", description = "Mark it sent.")
    boolean sent;

    @Option(names = "--retry", description = "Deliver it again now.")
    boolean retry;

    @Option(names = "--dead", description = "Dead-letter it.")
    boolean dead;

    Resolution resolution() {
      return sent ? Resolution.SENT : retry ? Resolution.RETRY : Resolution.DEAD;
    }
  }

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      Resolution resolution = how.resolution();
      String as = resolution.name().toLowerCase(Locale.ROOT);
      OutboxAdmin admin = db.admin(clock());
      if (admin.resolve(id, resolution)) {
        out().println("resolved " + id + " as " + as);
      } else if (admin.message(id).isPresent()) {
        out().println(id + " was already resolved as " + as);
      } else {
        throw new CliException("no outbox message has id \"" + id + "\"");
      }
      return 0;
    }
  }
}
