package dev.jooqoutbox;

import dev.jooqoutbox.internal.eventlog.EventAdmin;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.internal.repository.OutboxContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * What an operator or an admin endpoint does to the outbox, in code: read statistics, find dead
 * letters and put them back, look up one message, purge. The CLI is built on this class and nothing
 * below it.
 *
 * <p>Every method runs its own short statements on the bound {@link DSLContext} (autocommit), never
 * inside a caller's transaction, and never blocks a running relay: they touch only dead letters,
 * sent rows, outcome-unknown rows, the paused topics' own table, or read.
 *
 * <p>One rule for the methods that take a message id ({@link #requeue}, {@link #resolve}, {@link
 * #addRemoteRef}, {@link #message}): an id no message has (never written, or purged) is not an
 * error. Nothing is done, and the result says so: {@code false}, {@link Optional#empty()} or {@link
 * RemoteRefResult#NO_MESSAGE}. An exception means a real conflict: {@link
 * ResolutionConflictException} when the message exists and was settled another way.
 *
 * <p>Thread-safe and immutable.
 */
public final class OutboxAdmin {

  /** Rows a purge deletes per statement unless told otherwise. */
  public static final int DEFAULT_PURGE_BATCH = 1000;

  private final JooqOutboxRepository repository;
  private final EventAdmin events; // null where the database has no event log
  private final Clock clock;

  private OutboxAdmin(DSLContext dsl, Clock clock) {
    this.repository = new JooqOutboxRepository(dsl);
    this.events = repository.appendsEvents() ? new EventAdmin(dsl, repository) : null;
    this.clock = clock;
  }

  /** An admin on {@code dsl}, on the UTC system clock. */
  public static OutboxAdmin create(DSLContext dsl) {
    return create(dsl, Clock.systemUTC());
  }

  /**
   * An admin on {@code dsl} whose "now" comes from {@code clock}: ages, lease states and the time a
   * requeued message becomes available.
   */
  public static OutboxAdmin create(DSLContext dsl, Clock clock) {
    return create(dsl, clock, OutboxName.DEFAULT);
  }

  /**
   * An admin on the outbox {@code name} of the database (see {@link OutboxName}), on the UTC system
   * clock: as {@link #create(DSLContext, Clock, OutboxName)} with {@link Clock#systemUTC()}.
   */
  public static OutboxAdmin create(DSLContext dsl, OutboxName name) {
    return create(dsl, Clock.systemUTC(), name);
  }

  /**
   * As {@link #create(DSLContext, Clock)}, on the outbox {@code name} of the database: its stats,
   * dead letters, purge, requeues and resolutions see only that outbox's rows.
   */
  public static OutboxAdmin create(DSLContext dsl, Clock clock, OutboxName name) {
    return new OutboxAdmin(
        OutboxContext.of(Objects.requireNonNull(dsl, "dsl"), Objects.requireNonNull(name, "name")),
        Objects.requireNonNull(clock, "clock"));
  }

  /** Totals over every topic, from one read of the table. */
  public OutboxStats stats() {
    return OutboxStats.sum(statsByTopic().values());
  }

  /**
   * Counts per topic, sorted by topic; topics with no rows are absent. Reads every row once: meant
   * for operators and dashboards polled every few seconds at most, not for per-request use.
   */
  public Map<String, OutboxStats> statsByTopic() {
    return events != null
        ? events.statsByTopic(clock.instant())
        : repository.statsByTopic(clock.instant());
  }

  /**
   * How many messages are pending (not sent, not dead): one count over the pending index, cheap
   * enough for a gauge or a health check polled every few seconds.
   */
  public long pendingCount() {
    return events != null ? events.pendingCount() : repository.pendingCount();
  }

  /** How long the oldest pending message has waited; {@link Duration#ZERO} when none. Cheap. */
  public Duration oldestPendingAge() {
    return events != null
        ? events.oldestPendingAge(clock.instant())
        : repository.oldestPendingAge(clock.instant());
  }

  /** How many dead letters there are: one count over the dead-letter index. Cheap. */
  public long deadCount() {
    return repository.deadCount();
  }

  /**
   * One page of dead letters, oldest first, filtered by {@code query}. Follow {@link
   * DeadLetterPage#next()} for the next page.
   */
  public DeadLetterPage deadLetters(DeadLetterQuery query) {
    return repository.deadLetters(Objects.requireNonNull(query, "query"));
  }

  /**
   * Puts dead letter {@code id} back to pending: attempt count 0, last error cleared, available
   * now. Relays deliver it in its seq order among the pending messages of its aggregate (which may
   * be after newer messages that were sent while it was dead).
   *
   * @return false when no dead letter has this id (unknown, pending or already sent)
   */
  public boolean requeue(String id) {
    return repository.requeue(Objects.requireNonNull(id, "id"), clock.instant());
  }

  /** Requeues every dead letter of {@code topic}; returns how many. */
  public int requeueTopic(String topic) {
    return repository.requeueTopic(Objects.requireNonNull(topic, "topic"), clock.instant());
  }

  /** Requeues every dead letter; returns how many. */
  public int requeueAll() {
    return repository.requeueAll(clock.instant());
  }

  /**
   * Pauses {@code topic}: every relay of this outbox stops claiming its messages within one poll
   * interval (a message it holds already is delivered). A paused topic's pending message holds its
   * aggregate back, as a message of a topic no relay handles does, so that no newer message of the
   * aggregate overtakes it. Stored in the database: it outlives every relay, until {@link #resume}.
   * A topic with no message yet may be paused.
   *
   * @return false when it was paused already (its pause time stays the first one)
   * @throws InvalidMessageException when {@code topic} is not a valid topic
   */
  public boolean pause(String topic) {
    MessageRules.checkTopic(topic);
    return repository.pauses().pause(topic, clock.instant());
  }

  /**
   * Resumes {@code topic}: every relay claims its messages again within one poll interval.
   *
   * @return false when it was not paused
   * @throws InvalidMessageException when {@code topic} is not a valid topic
   */
  public boolean resume(String topic) {
    MessageRules.checkTopic(topic);
    return repository.pauses().resume(topic);
  }

  /** The paused topics and when each was paused, sorted by topic. */
  public Map<String, Instant> pausedTopics() {
    return repository.pauses().paused();
  }

  /** How many messages are outcome unknown: one count over their own index. Cheap. */
  public long unknownCount() {
    return repository.outcomes().unknownCount();
  }

  /**
   * The outcome-unknown messages (see {@code OutcomeUnknownException}), oldest first, at most
   * {@code limit}: each blocks the later messages of its aggregate until it is resolved.
   */
  public List<UnknownOutcome> unknownOutcomes(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    return repository.outcomes().list(limit);
  }

  /**
   * The pending messages that wait behind an outcome-unknown message of their aggregate: an older
   * message of the same aggregate whose outcome is unknown and that is neither sent nor dead. They
   * go once it is resolved ({@link #resolve}). Reads the outcome-unknown rows, then the pending
   * rows of their aggregates: for operators and dashboards, not per request.
   */
  public BlockedMessages blockedBehindUnknown() {
    return repository.blockedBehindUnknown();
  }

  /**
   * The pending messages that wait behind a message of their aggregate waiting for its retry: an
   * older message of the same aggregate that failed (it has a last error), is not leased, and is
   * due again only later. They go once it is delivered, or dead-lettered. A message delayed or
   * rescheduled without a failure is not counted as blocking. Reads every pending row: for
   * operators, not per request.
   */
  public BlockedMessages blockedBehindRetry() {
    return repository.blockedBehindRetry(clock.instant());
  }

  /**
   * Resolves outcome-unknown message {@code id} by hand: {@link Resolution#SENT} marks it sent,
   * {@link Resolution#RETRY} has it delivered again at once (the unknown attempt not counting
   * against its maximum), {@link Resolution#DEAD} dead-letters it. Each unblocks its aggregate. A
   * conditional update: of concurrent resolutions (operators, a reconciler) exactly one takes
   * effect.
   *
   * @return true when this call resolved it; false when nothing was done: it was already resolved
   *     the same way (repeating a resolution is safe), or no message has this id ({@link #message}
   *     tells which)
   * @throws ResolutionConflictException when the message is not outcome-unknown and was not
   *     resolved this way (another resolution came first, or it never was outcome-unknown); nothing
   *     is changed
   */
  public boolean resolve(String id, Resolution resolution) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(resolution, "resolution");
    String reason = resolution == Resolution.DEAD ? "outcome unknown, resolved dead by hand" : null;
    boolean resolved = repository.outcomes().resolve(id, resolution, reason, clock.instant());
    if (!resolved && events != null && repository.message(id, clock.instant()).isEmpty()) {
      events.refuseResolution(id, resolution, clock.instant()); // pending or sent in the log
    }
    return resolved;
  }

  /**
   * Stores the remote system's reference for message {@code id}, learned after its outcome became
   * unknown, unless it has one already: a stored reference is never replaced.
   *
   * @return {@link RemoteRefResult#ADDED} when it is stored now, {@link RemoteRefResult#KEPT} when
   *     the message already had one (this one or another) and keeps it, {@link
   *     RemoteRefResult#NO_MESSAGE} when no message has this id
   * @throws OutboxException on PostgreSQL, for a message of the event log that never had an unknown
   *     outcome (pending or sent there): the log stores no reference for it
   */
  public RemoteRefResult addRemoteRef(String id, String remoteRef) {
    RemoteRefResult result =
        repository
            .outcomes()
            .addRemoteRef(
                Objects.requireNonNull(id, "id"), Objects.requireNonNull(remoteRef, "ref"));
    if (result == RemoteRefResult.NO_MESSAGE
        && events != null
        && events.message(id, clock.instant()).isPresent()) {
      throw new OutboxException(
          "outbox message \""
              + id
              + "\" never had an unknown outcome: the event log keeps no remote reference for it");
    }
    return result;
  }

  /** The state of message {@code id} now; empty when no message has this id (or it was purged). */
  public Optional<MessageState> message(String id) {
    Objects.requireNonNull(id, "id");
    return events != null
        ? events.message(id, clock.instant())
        : repository.message(id, clock.instant());
  }

  /**
   * Deletes sent messages and inbox rows older than {@code olderThan}, {@value
   * #DEFAULT_PURGE_BATCH} rows per statement. Pending messages and dead letters are never deleted.
   * Keep {@code olderThan} longer than any redelivery a consumer's inbox must still recognize.
   */
  public PurgeResult purge(Duration olderThan) {
    return purge(olderThan, DEFAULT_PURGE_BATCH);
  }

  /** As {@link #purge(Duration)}, deleting at most {@code batchSize} rows per statement. */
  public PurgeResult purge(Duration olderThan, int batchSize) {
    Instant cutoff = cutoff(olderThan);
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, was " + batchSize);
    }
    return events != null ? events.purge(cutoff, batchSize) : repository.purge(cutoff, batchSize);
  }

  /**
   * What {@link #purge(Duration) purge(olderThan)} would delete now, counted, deleting nothing: a
   * dry run. The counts are of this moment; rows sent or received meanwhile age past the cutoff, so
   * a purge run later may delete more. Counts over the sent-at and inbox indexes.
   */
  public PurgeResult purgeCount(Duration olderThan) {
    Instant cutoff = cutoff(olderThan);
    return events != null ? events.purgeCount(cutoff) : repository.purgeCount(cutoff);
  }

  private Instant cutoff(Duration olderThan) {
    if (olderThan == null || olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must be zero or positive, was " + olderThan);
    }
    return clock.instant().minus(olderThan);
  }
}
