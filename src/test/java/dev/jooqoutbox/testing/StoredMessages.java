package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxName;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.JSON;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The messages of an outbox as a test reads them, wherever the database keeps them: the rows of
 * outbox_message and, on PostgreSQL, the messages of the event log that have no copy there
 * (docs/decisions/0001-postgresql-event-log.md). Their status is what {@link OutboxAdmin#message}
 * says: the log records no time of sending and counts one attempt for a message it delivered.
 */
public final class StoredMessages {

  /** One message, as stored. */
  public record Stored(
      long seq,
      String id,
      String aggregate,
      String topic,
      String payloadJson,
      Map<String, String> headers,
      Instant createdAt,
      Instant availableAt,
      MessageState state) {

    public MessageStatus status() {
      return state.status();
    }

    public int attempts() {
      return state.attempts();
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final DSLContext dsl;
  private final OutboxAdmin admin;

  private StoredMessages(DSLContext dsl, Clock clock, OutboxName name) {
    this.dsl = dsl;
    this.admin = OutboxAdmin.create(dsl, clock, name);
  }

  /** The default outbox of {@code dsl}, states read at {@code clock}'s time. */
  public static StoredMessages of(DSLContext dsl, Clock clock) {
    return new StoredMessages(dsl, clock, OutboxName.DEFAULT);
  }

  /** The default outbox of {@code dsl}, states read now. */
  public static StoredMessages of(DSLContext dsl) {
    return of(dsl, Clock.system(ZoneOffset.UTC));
  }

  /** A message's keys: its id, aggregate and seq. */
  public record Key(String id, String aggregate, long seq) {}

  /** The keys of every message, by seq: one read of each table, no states. */
  public List<Key> keys() {
    List<Key> keys = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (var r :
        dsl.select(OUTBOX_MESSAGE.ID, OUTBOX_MESSAGE.AGGREGATE, OUTBOX_MESSAGE.SEQ)
            .from(OUTBOX_MESSAGE)
            .fetch()) {
      ids.add(r.value1());
      keys.add(new Key(r.value1(), r.value2(), r.value3()));
    }
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      for (var r :
          dsl.select(OUTBOX_EVENT.ID, OUTBOX_EVENT.AGGREGATE, OUTBOX_EVENT.SEQ)
              .from(OUTBOX_EVENT)
              .fetch()) {
        if (ids.add(r.value1())) {
          keys.add(new Key(r.value1(), r.value2(), r.value3()));
        }
      }
    }
    keys.sort(Comparator.comparingLong(Key::seq));
    return keys;
  }

  /** Every message, by seq. */
  public List<Stored> all() {
    List<Stored> all = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (var r : dsl.selectFrom(OUTBOX_MESSAGE).fetch()) {
      ids.add(r.getId());
      all.add(
          stored(
              r.getSeq(),
              r.getId(),
              r.getAggregate(),
              r.getTopic(),
              r.getPayload(),
              r.getHeaders(),
              r.getCreatedAt(),
              r.getAvailableAt()));
    }
    if (dsl.dialect().family() == SQLDialect.POSTGRES) {
      for (var r : dsl.selectFrom(OUTBOX_EVENT).fetch()) {
        if (ids.add(r.getId())) {
          all.add(
              stored(
                  r.getSeq(),
                  r.getId(),
                  r.getAggregate(),
                  r.getTopic(),
                  r.getPayload(),
                  r.getHeaders(),
                  r.getCreatedAt(),
                  r.getAvailableAt()));
        }
      }
    }
    all.sort(Comparator.comparingLong(Stored::seq));
    return all;
  }

  /** The one message stored. */
  public Stored only() {
    List<Stored> all = all();
    if (all.size() != 1) {
      throw new AssertionError("expected one message stored, found " + all.size());
    }
    return all.get(0);
  }

  /** Message {@code id}. */
  public Stored byId(String id) {
    return all().stream()
        .filter(s -> s.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no message " + id));
  }

  /** How many messages are stored (from {@link OutboxAdmin#stats}). */
  public int count() {
    var stats = admin.stats();
    return (int) (stats.pending() + stats.dead() + stats.sentAwaitingPurge());
  }

  /** How many have {@code status}. */
  public int count(MessageStatus status) {
    return (int) all().stream().filter(s -> s.status() == status).count();
  }

  /** How many are sent (from {@link OutboxAdmin#stats}). */
  public int sent() {
    return (int) admin.stats().sentAwaitingPurge();
  }

  /**
   * The most attempts any message has counted: the rows' counts, and one for a message the event
   * log delivered without a copy (it had no second attempt: a failure would have copied it).
   */
  public int maxAttempts() {
    Integer rows =
        dsl.select(DSL.max(OUTBOX_MESSAGE.ATTEMPTS))
            .from(OUTBOX_MESSAGE)
            .fetchOne(0, Integer.class);
    int max = rows == null ? 0 : rows;
    if (dsl.dialect().family() == SQLDialect.POSTGRES && sent() > 0) {
      max = Math.max(max, 1);
    }
    return max;
  }

  /** How many are not sent (pending, leased, dead or of unknown outcome). */
  public int notSent() {
    return count() - sent();
  }

  private Stored stored(
      long seq,
      String id,
      String aggregate,
      String topic,
      JSON payload,
      JSON headers,
      Instant createdAt,
      Instant availableAt) {
    return new Stored(
        seq,
        id,
        aggregate,
        topic,
        payload.data(),
        headers(headers),
        createdAt,
        availableAt,
        admin.message(id).orElseThrow());
  }

  private static Map<String, String> headers(JSON json) {
    if (json == null) {
      return Map.of();
    }
    try {
      Map<String, String> h = MAPPER.readValue(json.data(), new TypeReference<>() {});
      return h == null ? Map.of() : h;
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
