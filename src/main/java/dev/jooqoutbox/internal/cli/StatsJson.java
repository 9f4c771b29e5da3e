package dev.jooqoutbox.internal.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.OutboxStats;

/**
 * One outbox's (or topic's) counts as JSON, the same for {@code outbox status --json} and the
 * console's overview, so a script and the page read the same field names.
 */
public final class StatsJson {

  private StatsJson() {}

  /** The counts of {@code s}; the oldest pending age is null when nothing is pending. */
  public static ObjectNode of(ObjectMapper mapper, OutboxStats s) {
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
