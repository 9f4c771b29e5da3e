package dev.jooqoutbox.cli;

import dev.jooqoutbox.DeadLetter;
import dev.jooqoutbox.DeadLetterPage;
import dev.jooqoutbox.DeadLetterQuery;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "dead-letters",
    mixinStandardHelpOptions = true,
    description = {
      "Lists dead letters with their last error.",
      "Oldest first: id, seq, topic, aggregate, attempts, when it died and its last error."
          + " Payloads are not shown unless --show-payload is given.",
      "Requeue them with `outbox requeue`; purge never deletes them."
    })
final class DeadLettersCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "Only dead letters of TOPIC.")
  String topic;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "Show at most N dead letters (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(
      names = "--show-payload",
      description = "Also print each payload (it may hold personal or secret data).")
  boolean showPayload;

  @Override
  int execute() {
    if (limit < 1 || limit > DeadLetterQuery.MAX_LIMIT) {
      throw new ParameterException(
          spec.commandLine(), "--limit must be between 1 and " + DeadLetterQuery.MAX_LIMIT);
    }
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      Instant now = clock().instant();
      DeadLetterQuery query = DeadLetterQuery.all().limit(limit);
      DeadLetterPage page =
          db.admin(fixedAt(now)).deadLetters(topic == null ? query : query.topic(topic));
      boolean more = page.hasMore();
      List<DeadLetter> shown = page.letters();
      for (DeadLetter letter : shown) {
        print(letter, now);
        out().println();
      }
      String ofTopic = topic == null ? "" : " of topic " + topic;
      if (shown.isEmpty()) {
        out().println("no dead letters" + ofTopic);
      } else if (more) {
        out()
            .println(
                "showing the first "
                    + Plural.of(shown.size(), "dead letter")
                    + ofTopic
                    + "; there are more (raise --limit)");
      } else {
        out().println(Plural.of(shown.size(), "dead letter") + ofTopic);
      }
      return 0;
    }
  }

  private void print(DeadLetter letter, Instant now) {
    field("id", letter.id());
    field("seq", Long.toString(letter.seq()));
    field("topic", letter.topic());
    field("aggregate", letter.aggregate());
    field("attempts", Integer.toString(letter.attempts()));
    field(
        "dead since",
        letter.deadAt().truncatedTo(ChronoUnit.SECONDS)
            + " ("
            + Durations.format(Duration.between(letter.deadAt(), now))
            + " ago)");
    field("last error", letter.lastError() == null ? "-" : letter.lastError());
    if (showPayload) {
      field("payload", letter.payloadJson());
    }
  }

  /** One "name value" line; further lines of a multi-line value are indented under the value. */
  private void field(String name, String value) {
    String indent = " ".repeat(12);
    // Tabs (stack traces) would jump to a tab stop, out of the indented block.
    String[] lines = value.strip().replace("\t", "    ").split("\\R");
    out().println(String.format("%-12s", name) + lines[0]);
    for (int i = 1; i < lines.length; i++) {
      out().println(indent + lines[i]);
    }
  }
}
