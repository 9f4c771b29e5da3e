package dev.jooqoutbox.spring.actuator;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.spring.OutboxProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the {@code outbox} health indicator reports, whichever Spring Boot line draws it: DOWN when
 * delivery has stopped or fallen behind, that is when the oldest pending message has waited longer
 * than {@code jooq-outbox.health.max-pending-age}; also when there are more dead letters than
 * {@code jooq-outbox.health.max-dead-letters}, only if that is set. Three cheap counts over the
 * outbox's indexes. {@code oldestPendingAge} is null when nothing is pending.
 */
final class OutboxHealthCheck {

  /** One reading: whether the outbox is healthy, and the numbers behind it. */
  record Reading(boolean up, Map<String, Object> details) {}

  private final OutboxAdmin admin;
  private final Duration maxPendingAge;
  private final Long maxDeadLetters; // null: dead letters never take it DOWN

  OutboxHealthCheck(OutboxAdmin admin, OutboxProperties.Health properties) {
    this.admin = admin;
    this.maxPendingAge = properties.getMaxPendingAge();
    this.maxDeadLetters = properties.getMaxDeadLetters();
    String prefix = OutboxProperties.PREFIX + ".health.";
    if (maxPendingAge == null || maxPendingAge.isNegative() || maxPendingAge.isZero()) {
      throw new IllegalStateException(
          prefix + "max-pending-age must be a positive duration, was " + maxPendingAge);
    }
    if (maxDeadLetters != null && maxDeadLetters < 0) {
      throw new IllegalStateException(
          prefix + "max-dead-letters must be 0 or more, was " + maxDeadLetters);
    }
  }

  Reading read() {
    long pending = admin.pendingCount();
    Duration oldest = admin.oldestPendingAge();
    long dead = admin.deadCount();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("pending", pending);
    details.put("oldestPendingAge", pending == 0 ? null : oldest.toString());
    details.put("deadLetters", dead);
    boolean stuck = oldest.compareTo(maxPendingAge) > 0;
    boolean tooManyDead = maxDeadLetters != null && dead > maxDeadLetters;
    if (stuck) {
      details.put("reason", "oldest pending message older than " + maxPendingAge);
    } else if (tooManyDead) {
      details.put("reason", "more than " + maxDeadLetters + " dead letters");
    }
    return new Reading(!stuck && !tooManyDead, details);
  }
}
