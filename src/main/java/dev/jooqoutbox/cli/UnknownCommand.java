package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.UnknownOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "unknown",
    mixinStandardHelpOptions = true,
    description = {
      "Lists messages whose outcome is unknown: their handler called a remote system and could"
          + " not learn the result.",
      "Oldest first: id, seq, topic, aggregate, attempts, since when, the remote reference and"
          + " what the handler said. Each blocks the later messages of its aggregate until a"
          + " reconciler or `outbox resolve` settles it; none is retried by itself."
    })
final class UnknownCommand extends OutboxCommand {

  private static final int MAX_LIMIT = 10_000;

  @Mixin DatabaseOption database;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "Show at most N messages (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  int execute() {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ParameterException(
          spec.commandLine(), "--limit must be between 1 and " + MAX_LIMIT);
    }
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      Instant now = clock().instant();
      OutboxAdmin admin = db.admin(fixedAt(now));
      // One more than shown tells whether there are more, without counting them all.
      List<UnknownOutcome> found = admin.unknownOutcomes(limit + 1);
      List<UnknownOutcome> shown = found.subList(0, Math.min(limit, found.size()));
      for (UnknownOutcome u : shown) {
        print(u, now);
        out().println();
      }
      if (shown.isEmpty()) {
        out().println("no messages with an unknown outcome");
      } else if (found.size() > limit) {
        out()
            .println(
                "showing the first "
                    + Plural.of(shown.size(), "message")
                    + " with an unknown outcome; there are more (raise --limit)");
      } else {
        out().println(Plural.of(shown.size(), "message") + " with an unknown outcome");
      }
      return 0;
    }
  }

  private void print(UnknownOutcome u, Instant now) {
    line("id", u.id());
    line("seq", Long.toString(u.seq()));
    line("topic", u.topic());
    line("aggregate", u.aggregate());
    line("attempts", Integer.toString(u.attempts()));
    line(
        "since",
        u.since().truncatedTo(ChronoUnit.SECONDS)
            + " ("
            + Durations.format(Duration.between(u.since(), now))
            + " ago)");
    line("remote ref", u.remoteRef() == null ? "-" : u.remoteRef());
    line(
        "last error",
        u.lastError() == null ? "-" : u.lastError().strip().lines().findFirst().orElse("-"));
  }

  private void line(String name, String value) {
    out().println(String.format("%-12s", name) + value);
  }
}
