package dev.jooqoutbox;

/**
 * Pending messages that wait behind an older message of their aggregate which cannot be delivered
 * now: messages of one aggregate go in seq order, so everything after such a message waits with it.
 * Read by {@link OutboxAdmin#blockedBehindUnknown()} and {@link OutboxAdmin#blockedBehindRetry()}.
 *
 * @param messages how many messages wait (the blocking messages themselves not counted)
 * @param aggregates how many aggregates they belong to
 * @param oldestAggregate the aggregate that has waited longest: the one whose blocking message is
 *     the oldest (lowest seq); null when nothing waits
 * @param oldestBlockerId the id of that blocking message, to look up or resolve; null when nothing
 *     waits
 */
public record BlockedMessages(
    long messages, long aggregates, String oldestAggregate, String oldestBlockerId) {

  /** Nothing waits. */
  public static final BlockedMessages NONE = new BlockedMessages(0, 0, null, null);
}
