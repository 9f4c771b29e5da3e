package dev.jooqoutbox.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.BlockedMessages;
import dev.jooqoutbox.DeadLetter;
import dev.jooqoutbox.DeadLetterPage;
import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.UnknownOutcome;
import dev.jooqoutbox.internal.cli.StatsJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the console's reads answer, as JSON: every value the database holds is a JSON string or
 * number, never markup. Payloads only when the console shows them.
 */
final class ConsoleJson {

  private final ObjectMapper json;
  private final boolean showPayloads;

  ConsoleJson(ObjectMapper json, boolean showPayloads) {
    this.json = json;
    this.showPayloads = showPayloads;
  }

  ObjectNode overview(
      OutboxAdmin admin,
      BacklogSamples.Latest latest,
      List<BacklogSamples.Sample> samples,
      Duration every,
      boolean actions) {
    Map<String, OutboxStats> byTopic = latest.byTopic();
    Map<String, Instant> paused = admin.pausedTopics(); // one small table: read live
    ObjectNode root = json.createObjectNode();
    root.put("actions", actions);
    root.put("payloads", showPayloads);
    root.put("sampleEverySeconds", every.toSeconds());
    root.put("countsAt", latest.at().toString());
    root.set("total", stats(OutboxStats.sum(byTopic.values())));
    ObjectNode topics = root.putObject("topics");
    byTopic.forEach(
        (topic, s) -> topics.set(topic, stats(s).put("paused", paused.containsKey(topic))));
    ObjectNode pausedNode = root.putObject("paused");
    paused.forEach((topic, at) -> pausedNode.put(topic, at.toString()));
    ArrayNode points = root.putArray("samples");
    for (BacklogSamples.Sample s : samples) {
      points
          .addObject()
          .put("at", s.at().toString())
          .put("pending", s.pending())
          .put("dead", s.dead())
          .put("unknown", s.unknown())
          .put("sentAwaitingPurge", s.sentAwaitingPurge());
    }
    return root;
  }

  private ObjectNode stats(OutboxStats s) {
    return StatsJson.of(json, s);
  }

  ObjectNode deadLetters(DeadLetterPage page) {
    ObjectNode root = json.createObjectNode();
    ArrayNode letters = root.putArray("letters");
    for (DeadLetter d : page.letters()) {
      letters
          .addObject()
          .put("seq", d.seq())
          .put("id", d.id())
          .put("aggregate", d.aggregate())
          .put("topic", d.topic())
          .put("attempts", d.attempts())
          .put("lastError", d.lastError())
          .put("createdAt", text(d.createdAt()))
          .put("deadAt", text(d.deadAt()));
    }
    page.next().ifPresent(next -> root.put("after", next.afterSeq()));
    return root;
  }

  ObjectNode unknown(List<UnknownOutcome> outcomes, BlockedMessages blocked) {
    ObjectNode root = json.createObjectNode();
    ArrayNode list = root.putArray("outcomes");
    for (UnknownOutcome u : outcomes) {
      list.addObject()
          .put("id", u.id())
          .put("aggregate", u.aggregate())
          .put("topic", u.topic())
          .put("attempts", u.attempts())
          .put("since", text(u.since()))
          .put("remoteRef", u.remoteRef())
          .put("lastError", u.lastError())
          .put("nextCheckAt", text(u.nextCheckAt()));
    }
    root.putObject("blocked")
        .put("messages", blocked.messages())
        .put("aggregates", blocked.aggregates())
        .put("oldestAggregate", blocked.oldestAggregate())
        .put("oldestBlockerId", blocked.oldestBlockerId());
    return root;
  }

  ObjectNode message(MessageState m) {
    ObjectNode node =
        json.createObjectNode()
            .put("seq", m.seq())
            .put("id", m.id())
            .put("aggregate", m.aggregate())
            .put("topic", m.topic())
            .put("status", m.status().name())
            .put("attempts", m.attempts())
            .put("lastError", m.lastError())
            .put("createdAt", text(m.createdAt()))
            .put("availableAt", text(m.availableAt()))
            .put("leasedUntil", text(m.leasedUntil()))
            .put("sentAt", text(m.sentAt()))
            .put("deadAt", text(m.deadAt()))
            .put("outcomeUnknownAt", text(m.outcomeUnknownAt()))
            .put("remoteRef", m.remoteRef());
    ObjectNode headers = node.putObject("headers");
    m.headers().forEach(headers::put);
    if (showPayloads) {
      node.put("payload", m.payloadJson());
    }
    return node;
  }

  private static String text(Instant at) {
    return at == null ? null : at.toString();
  }
}
