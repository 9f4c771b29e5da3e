package dev.jooqoutbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.BlockedMessages;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.internal.cli.StatsJson;
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
      "Then, when there are any, the messages blocked behind an older message of their aggregate:"
          + " one whose outcome is unknown, or one waiting for its retry after a failure; how many,"
          + " of how many aggregates, and the aggregate and message that have blocked longest.",
      "Then the topics paused by `outbox pause`, with when each was paused.",
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
      OutboxAdmin admin = db.admin(fixedAt(now));
      Map<String, OutboxStats> byTopic = admin.statsByTopic();
      // Summed here from the same read, so the total always matches the rows above it.
      OutboxStats total = OutboxStats.sum(byTopic.values());
      BlockedMessages behindUnknown = admin.blockedBehindUnknown();
      BlockedMessages behindRetry = admin.blockedBehindRetry();
      Map<String, Instant> paused = admin.pausedTopics();
      if (json) {
        printJson(db.displayUrl(), now, byTopic, total, behindUnknown, behindRetry, paused);
      } else {
        printText(db.displayUrl(), now, byTopic, total);
        if (behindUnknown.messages() > 0 || behindRetry.messages() > 0) {
          out().println();
        }
        printBlocked(behindUnknown, "a message whose outcome is unknown", "; see `outbox unknown`");
        printBlocked(behindRetry, "a message waiting for its retry", "");
        printPaused(paused);
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

  /** One line naming the paused topics; nothing when none is. */
  private void printPaused(Map<String, Instant> paused) {
    if (paused.isEmpty()) {
      return;
    }
    StringBuilder line = new StringBuilder("paused: ");
    paused.forEach(
        (topic, at) ->
            line.append(line.length() > 8 ? ", " : "")
                .append(topic)
                .append(" (since ")
                .append(at.truncatedTo(ChronoUnit.SECONDS))
                .append(')'));
    out().println();
    out().println(line.append("; `outbox resume TOPIC` resumes one"));
  }

  /** One line when messages wait behind {@code what}; nothing when none does. */
  private void printBlocked(BlockedMessages blocked, String what, String hint) {
    if (blocked.messages() == 0) {
      return;
    }
    out()
        .println(
            "blocked: "
                + Plural.of(blocked.messages(), "message")
                + " of "
                + Plural.of(blocked.aggregates(), "aggregate")
                + (blocked.messages() == 1 ? " waits" : " wait")
                + " behind "
                + what
                + " (the oldest: aggregate "
                + blocked.oldestAggregate()
                + ", behind message "
                + blocked.oldestBlockerId()
                + ")"
                + hint);
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
      String url,
      Instant now,
      Map<String, OutboxStats> byTopic,
      OutboxStats total,
      BlockedMessages behindUnknown,
      BlockedMessages behindRetry,
      Map<String, Instant> paused) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("database", url);
    root.put("at", now.truncatedTo(ChronoUnit.MILLIS).toString());
    root.set("total", toJson(mapper, total));
    ObjectNode topics = root.putObject("topics");
    byTopic.forEach((topic, s) -> topics.set(topic, toJson(mapper, s)));
    ObjectNode blocked = root.putObject("blocked");
    blocked.set("behindUnknown", toJson(mapper, behindUnknown));
    blocked.set("behindRetry", toJson(mapper, behindRetry));
    ObjectNode pausedNode = root.putObject("paused");
    paused.forEach(
        (topic, at) -> pausedNode.put(topic, at.truncatedTo(ChronoUnit.MILLIS).toString()));
    try {
      out().println(mapper.writeValueAsString(root));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of numbers and strings always serializes", e);
    }
  }

  private static ObjectNode toJson(ObjectMapper mapper, BlockedMessages b) {
    return mapper
        .createObjectNode()
        .put("messages", b.messages())
        .put("aggregates", b.aggregates())
        .put("oldestAggregate", b.oldestAggregate())
        .put("oldestBlockerId", b.oldestBlockerId());
  }

  private static ObjectNode toJson(ObjectMapper mapper, OutboxStats s) {
    return StatsJson.of(mapper, s);
  }
}
