package dev.jooqoutbox.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.Resolution;
import dev.jooqoutbox.console.ConsoleHttp.Answer;
import dev.jooqoutbox.console.ConsoleHttp.Request;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's routes: the page's three files, the reads ({@code GET /api/...}) and the actions
 * ({@code POST /api/...}), each one {@link OutboxAdmin} call. What the database holds goes out as
 * JSON strings ({@link ConsoleJson}); a filter longer than a key may be is refused, never cut.
 */
final class ConsoleApi implements ConsoleHttp.Routes {

  private static final Logger log = LoggerFactory.getLogger(OutboxConsole.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The longest filter: an id, aggregate or topic is at most 255 characters. */
  static final int MAX_FILTER = 255;

  /** The largest page of dead letters the page asks for. */
  static final int MAX_PAGE = 500;

  /** The most ids one requeue names. */
  static final int MAX_IDS = 1000;

  private static final Map<String, String> ASSETS =
      Map.of(
          "/", "index.html",
          "/console.js", "console.js",
          "/console.css", "console.css");

  private final OutboxAdmin admin;
  private final BacklogSamples samples;
  private final boolean actions;
  private final ConsoleJson json;

  ConsoleApi(OutboxAdmin admin, BacklogSamples samples, boolean actions, boolean showPayloads) {
    this.admin = admin;
    this.samples = samples;
    this.actions = actions;
    this.json = new ConsoleJson(JSON, showPayloads);
  }

  static ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "outbox-console-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public Answer answer(Request r) {
    try {
      if (r.method().equals("GET")) {
        return get(r);
      }
      if (!actions) {
        return Answer.text(403, "actions are off in this console");
      }
      Answer answer = post(r.path(), JSON.readTree(r.body()));
      if (answer.status() == 200) {
        // The overview shows what the action changed, not the counts of before it. Only after an
        // action taken: the sample reads every row, which a stray POST should not cost.
        samples.sample();
      }
      return answer;
    } catch (BadRequest | IllegalArgumentException | OutboxException e) {
      return Answer.text(400, e.getMessage());
    } catch (IOException e) {
      return Answer.text(400, "not a JSON body");
    }
  }

  private Answer get(Request r) throws IOException {
    if (r.path().equals("/favicon.ico")) {
      return new Answer(204, "image/x-icon", new byte[0]); // no icon, and no error in the console
    }
    String asset = ASSETS.get(r.path());
    if (asset != null) {
      return asset(asset);
    }
    Map<String, String> q = r.query();
    return switch (r.path()) {
      case "/api/overview" ->
          ok(json.overview(admin, samples.latest(), samples.lastHour(), samples.every(), actions));
      case "/api/dead-letters" -> ok(json.deadLetters(admin.deadLetters(deadLetterQuery(q))));
      case "/api/unknown" ->
          ok(json.unknown(admin.unknownOutcomes(MAX_PAGE), admin.blockedBehindUnknown()));
      case "/api/message" -> {
        String id = filter(q, "id");
        if (id == null) {
          throw new BadRequest("give an id");
        }
        yield admin
            .message(id)
            .map(m -> ok(json.message(m)))
            .orElseGet(() -> Answer.text(404, "no message has this id"));
      }
      default -> Answer.text(404, "no such page");
    };
  }

  private Answer post(String path, JsonNode body) {
    switch (path) {
      case "/api/dead-letters/requeue" -> {
        if (body.hasNonNull("topic")) {
          String topic = text(body, "topic");
          int count = admin.requeueTopic(topic);
          log.info("outbox console: requeued {} dead letters of topic {}", count, topic);
          return ok(JSON.createObjectNode().put("requeued", count));
        }
        Set<String> ids = ids(body);
        int count = 0;
        for (String id : ids) {
          count += admin.requeue(id) ? 1 : 0;
        }
        log.info("outbox console: requeued {} of the dead letters {}", count, ids);
        return ok(JSON.createObjectNode().put("requeued", count));
      }
      case "/api/unknown/resolve" -> {
        String id = text(body, "id");
        Resolution resolution = Resolution.valueOf(text(body, "resolution"));
        boolean changed = admin.resolve(id, resolution);
        log.info("outbox console: resolved {} as {} (changed: {})", id, resolution, changed);
        return ok(JSON.createObjectNode().put("resolved", changed));
      }
      case "/api/topics/pause" -> {
        String topic = text(body, "topic");
        boolean changed = admin.pause(topic);
        log.info("outbox console: paused topic {} (changed: {})", topic, changed);
        return ok(JSON.createObjectNode().put("changed", changed));
      }
      case "/api/topics/resume" -> {
        String topic = text(body, "topic");
        boolean changed = admin.resume(topic);
        log.info("outbox console: resumed topic {} (changed: {})", topic, changed);
        return ok(JSON.createObjectNode().put("changed", changed));
      }
      default -> {
        return Answer.text(404, "no such action");
      }
    }
  }

  private static DeadLetterQuery deadLetterQuery(Map<String, String> q) {
    DeadLetterQuery query = DeadLetterQuery.all().limit(intParam(q, "limit", 50, MAX_PAGE));
    String topic = filter(q, "topic");
    if (topic != null) {
      query = query.topic(topic);
    }
    String aggregate = filter(q, "aggregate");
    if (aggregate != null) {
      query = query.aggregate(aggregate);
    }
    Instant from = instant(q, "from");
    Instant before = instant(q, "before");
    if (from != null || before != null) {
      query = query.deadBetween(from, before);
    }
    return query.afterSeq(intParam(q, "after", 0, Integer.MAX_VALUE));
  }

  /** A filter: null when absent or empty; refused when longer than a key may be. */
  private static String filter(Map<String, String> q, String name) {
    String value = q.get(name);
    if (value == null || value.isEmpty()) {
      return null;
    }
    if (value.length() > MAX_FILTER) {
      throw new BadRequest(name + " is at most " + MAX_FILTER + " characters");
    }
    return value;
  }

  private static Instant instant(Map<String, String> q, String name) {
    String value = filter(q, name);
    try {
      return value == null ? null : Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new BadRequest(name + " is an instant such as 2026-12-07T08:00:00Z");
    }
  }

  private static int intParam(Map<String, String> q, String name, int absent, int max) {
    String value = filter(q, name);
    if (value == null) {
      return absent;
    }
    try {
      int n = Integer.parseInt(value);
      if (n < 0 || n > max) {
        throw new BadRequest(name + " is between 0 and " + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new BadRequest(name + " is a number");
    }
  }

  private static String text(JsonNode body, String field) {
    JsonNode node = body.get(field);
    if (node == null || !node.isTextual() || node.asText().length() > MAX_FILTER) {
      throw new BadRequest(field + " is a text of at most " + MAX_FILTER + " characters");
    }
    return node.asText();
  }

  private static Set<String> ids(JsonNode body) {
    JsonNode ids = body.get("ids");
    if (!(ids instanceof ArrayNode array) || array.isEmpty() || array.size() > MAX_IDS) {
      throw new BadRequest("ids is a list of 1 to " + MAX_IDS + " ids, or give a topic");
    }
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode id : array) {
      if (!id.isTextual() || id.asText().length() > MAX_FILTER) {
        throw new BadRequest("an id is a text of at most " + MAX_FILTER + " characters");
      }
      out.add(id.asText());
    }
    return out;
  }

  private static Answer ok(ObjectNode node) {
    try {
      return new Answer(200, "application/json", JSON.writeValueAsBytes(node));
    } catch (IOException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  private static Answer asset(String name) throws IOException {
    try (InputStream in = ConsoleApi.class.getResourceAsStream(name)) {
      if (in == null) {
        return Answer.text(404, "missing from the jar: " + name);
      }
      String type =
          name.endsWith(".js")
              ? "text/javascript; charset=utf-8"
              : name.endsWith(".css") ? "text/css; charset=utf-8" : "text/html; charset=utf-8";
      return new Answer(200, type, in.readAllBytes());
    }
  }

  /** A request the console refuses, with the reason it gives (status 400). */
  static final class BadRequest extends RuntimeException {
    BadRequest(String message) {
      super(message, null, false, false);
    }
  }
}
