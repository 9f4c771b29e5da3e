package dev.jooqoutbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.OutboxStats;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Counts pending, leased, outcome-unknown, dead and sent messages, per topic.",
      "Pending: not sent and not dead (includes leased, backing-off and unknown messages). Leased:"
          + " held by a relay now. Unknown: outcome unknown, waiting for `outbox resolve` or a"
          + " reconciler. Sent-awaiting-purge: delivered, kept until `outbox purge`."
          + " Oldest-pending-age: how long the oldest pending message has waited.",
      "Reads every row once: meant for an operator, not for a metrics scrape."
    })
final class StatusCommand extends OutboxCommand {

  private static final String ALL_TOPICS = "(all topics)";

  @Mixin DatabaseOption database;

  @Option(
      names = "--json",
      description =
          "Print JSON for scripts: totals, then per topic; ages in milliseconds (null when"
              + " nothing is pending).")
  boolean json;

  @Override
  int execute() {
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      Instant now = clock().instant();
      Map<String, OutboxStats> byTopic = db.admin(fixedAt(now)).statsByTopic();
      // Summed here from the same read, so the total always matches the rows above it.
      OutboxStats total = OutboxStats.sum(byTopic.values());
      if (json) {
        printJson(db.displayUrl(), now, byTopic, total);
      } else {
        printText(db.displayUrl(), now, byTopic, total);
      }
      return 0;
    }
  }

  private void printText(
      String url, Instant now, Map<String, OutboxStats> byTopic, OutboxStats total) {
    out().println("outbox in " + url + " at " + now.truncatedTo(ChronoUnit.SECONDS));
    out().println();
    TextTable table =
        new TextTable(
                "TOPIC",
                "PENDING",
                "LEASED",
                "UNKNOWN",
                "DEAD",
                "SENT-AWAITING-PURGE",
                "OLDEST-PENDING-AGE")
            .alignRight(1, 2, 3, 4, 5);
    byTopic.forEach((topic, s) -> addRow(table, topic, s));
    addRow(table, ALL_TOPICS, total);
    table.print(out());
  }

  private static void addRow(TextTable table, String topic, OutboxStats s) {
    table.add(
        topic,
        Plural.count(s.pending()),
        Plural.count(s.leased()),
        Plural.count(s.unknown()),
        Plural.count(s.dead()),
        Plural.count(s.sentAwaitingPurge()),
        s.pending() == 0 ? "-" : Durations.format(s.oldestPendingAge()));
  }

  private void printJson(
      String url, Instant now, Map<String, OutboxStats> byTopic, OutboxStats total) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("database", url);
    root.put("at", now.truncatedTo(ChronoUnit.MILLIS).toString());
    root.set("total", toJson(mapper, total));
    ObjectNode topics = root.putObject("topics");
    byTopic.forEach((topic, s) -> topics.set(topic, toJson(mapper, s)));
    try {
      out().println(mapper.writeValueAsString(root));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of numbers and strings always serializes", e);
    }
  }

  private static ObjectNode toJson(ObjectMapper mapper, OutboxStats s) {
    ObjectNode stats =
        mapper
            .createObjectNode()
            .put("pending", s.pending())
            .put("leased", s.leased())
            .put("unknown", s.unknown())
            .put("dead", s.dead())
            .put("sentAwaitingPurge", s.sentAwaitingPurge());
    // Nothing pending has no age: null, as the text prints "-" (0 would read as "just written").
    return s.pending() == 0
        ? stats.putNull("oldestPendingAgeMillis")
        : stats.put("oldestPendingAgeMillis", s.oldestPendingAge().toMillis());
  }
}
