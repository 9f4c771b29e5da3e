package dev.jooqoutbox.spring.actuator;

import dev.jooqoutbox.DeadLetter;
import dev.jooqoutbox.DeadLetterPage;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.lang.Nullable;

/**
 * The {@code outbox} Actuator endpoint, over {@link OutboxAdmin}:
 *
 * <ul>
 *   <li>{@code GET /actuator/outbox}: the totals and the counts per topic;
 *   <li>{@code GET /actuator/outbox/dead-letters?topic=&limit=&afterSeq=}: one page of dead
 *       letters, oldest first, without payloads, and the {@code afterSeq} of the next page;
 *   <li>{@code POST /actuator/outbox/dead-letters/{id}}: requeues that dead letter.
 * </ul>
 *
 * <p>Answers are maps of strings and numbers (times in ISO-8601), so they read the same whatever
 * JSON library the Actuator uses. Expose it like any endpoint ({@code
 * management.endpoints.web.exposure.include=health,outbox}); it can requeue, so secure it as an
 * operator's tool.
 */
@Endpoint(id = "outbox")
public class OutboxEndpoint {

  static final String DEAD_LETTERS = "dead-letters";

  private final OutboxAdmin admin;

  public OutboxEndpoint(OutboxAdmin admin) {
    this.admin = admin;
  }

  /** The totals and the counts per topic. */
  @ReadOperation
  public Map<String, Object> stats() {
    Map<String, Object> byTopic = new LinkedHashMap<>();
    admin.statsByTopic().forEach((topic, stats) -> byTopic.put(topic, describe(stats)));
    Map<String, Object> answer = new LinkedHashMap<>(describe(admin.stats()));
    answer.put("topics", byTopic);
    return answer;
  }

  /**
   * One page of dead letters; null (404 over HTTP) for any section but {@code dead-letters}.
   *
   * @param limit at most this many (default 100, 1 to 10000; outside that a 400 over HTTP)
   * @param afterSeq the {@code next} of the previous page
   */
  @ReadOperation
  public Map<String, Object> deadLetters(
      @Selector String section,
      @Nullable String topic,
      @Nullable Integer limit,
      @Nullable Long afterSeq) {
    if (!DEAD_LETTERS.equals(section)) {
      return null;
    }
    DeadLetterPage page = admin.deadLetters(query(topic, limit, afterSeq));
    List<Map<String, Object>> letters =
        page.letters().stream().map(OutboxEndpoint::describe).toList();
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("deadLetters", letters);
    answer.put("next", page.next().map(DeadLetterQuery::afterSeq).orElse(null));
    return answer;
  }

  /**
   * The query the parameters ask for; a parameter out of its range is the caller's error (400 over
   * HTTP, naming the parameter and its bounds), not the server's.
   */
  private static DeadLetterQuery query(String topic, Integer limit, Long afterSeq) {
    try {
      DeadLetterQuery query = DeadLetterQuery.all();
      if (topic != null) {
        query = query.topic(topic);
      }
      if (limit != null) {
        query = query.limit(limit);
      }
      if (afterSeq != null) {
        query = query.afterSeq(afterSeq);
      }
      return query;
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
  }

  /**
   * Puts dead letter {@code id} back to pending; {@code requeued} is false when no dead letter has
   * that id. Null (404 over HTTP) for any section but {@code dead-letters}.
   */
  @WriteOperation
  public Map<String, Object> requeue(@Selector String section, @Selector String id) {
    if (!DEAD_LETTERS.equals(section)) {
      return null;
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("id", id);
    answer.put("requeued", admin.requeue(id));
    return answer;
  }

  private static Map<String, Object> describe(OutboxStats stats) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("pending", stats.pending());
    s.put("leased", stats.leased());
    s.put("unknown", stats.unknown());
    s.put("dead", stats.dead());
    s.put("sentAwaitingPurge", stats.sentAwaitingPurge());
    s.put("oldestPendingAge", stats.oldestPendingAge().toString());
    return s;
  }

  private static Map<String, Object> describe(DeadLetter letter) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("seq", letter.seq());
    d.put("id", letter.id());
    d.put("aggregate", letter.aggregate());
    d.put("topic", letter.topic());
    d.put("attempts", letter.attempts());
    d.put("lastError", letter.lastError());
    d.put("createdAt", letter.createdAt().toString());
    d.put("deadAt", letter.deadAt().toString());
    return d;
  }
}
