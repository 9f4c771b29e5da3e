package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_PAUSED_TOPIC;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.DSLContext;

/**
 * The topics an operator paused ({@code outbox_paused_topic}): every relay of the outbox reads them
 * once a poll interval and claims no message of theirs. Each method is one short statement.
 *
 * <p>Not API.
 */
public final class TopicPauses {

  private final DSLContext dsl;

  TopicPauses(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Pauses {@code topic} as of {@code now}, unless it is paused already (then its first pause time
   * stays).
   *
   * @return whether this call paused it
   */
  public boolean pause(String topic, Instant now) {
    // On every dialect an insert that ignores the primary key's conflict (ON CONFLICT DO NOTHING,
    // INSERT IGNORE, INSERT OR IGNORE): two operators pausing at once both succeed, one row stays.
    return dsl.insertInto(OUTBOX_PAUSED_TOPIC)
            .set(OUTBOX_PAUSED_TOPIC.TOPIC, topic)
            .set(OUTBOX_PAUSED_TOPIC.PAUSED_AT, now)
            .onDuplicateKeyIgnore()
            .execute()
        == 1;
  }

  /**
   * Resumes {@code topic}.
   *
   * @return whether it was paused
   */
  public boolean resume(String topic) {
    return dsl.deleteFrom(OUTBOX_PAUSED_TOPIC).where(OUTBOX_PAUSED_TOPIC.TOPIC.eq(topic)).execute()
        == 1;
  }

  /** The paused topics and when each was paused, by topic. */
  public Map<String, Instant> paused() {
    Map<String, Instant> paused = new LinkedHashMap<>();
    dsl.select(OUTBOX_PAUSED_TOPIC.TOPIC, OUTBOX_PAUSED_TOPIC.PAUSED_AT)
        .from(OUTBOX_PAUSED_TOPIC)
        .orderBy(OUTBOX_PAUSED_TOPIC.TOPIC)
        .forEach(r -> paused.put(r.value1(), r.value2()));
    return paused;
  }
}
