package dev.jooqoutbox.internal.repository;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.BlockedMessages;
import dev.jooqoutbox.DeadLetterPage;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.MessageState;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.internal.naming.OutboxNaming;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jooq.DSLContext;

/**
 * The outbox's typed SQL, the entry point of this package: every statement the writer, the inbox,
 * the relay and the operator API run, as jOOQ DSL over the generated classes, with the locking each
 * database needs ({@link OutboxDialect}). Not API: applications use {@code Outbox}, {@code Inbox},
 * {@code OutboxRelay} and {@code OutboxAdmin}.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>{@link #claim} hands out only <em>ready</em> messages: not sent, not dead, not outcome
 *       unknown, available, not leased, of a requested topic, and with every older pending (not
 *       sent, not dead) message of the same aggregate in the same claim, in seq order without a
 *       gap. Concurrent claimers on any number of connections or machines never receive the same
 *       row while its lease holds.
 *   <li>Every settle ({@link #markSent}, {@link #retryLater}, {@link #deadLetter}, {@link
 *       #deadLetterExhausted}, {@link #release}) matches the claim token: a relay whose row was
 *       claimed again by another relay after its lease ran out changes nothing (0 rows is a lost
 *       race, not an error).
 *   <li>Dead letters are kept by {@link #purge}; only {@link #requeue} or a deliberate delete
 *       removes them from the dead letters.
 * </ul>
 *
 * <p>Thread-safe. Its one piece of mutable state is the claim's {@link ClaimFloor} (in its {@link
 * MessageClaimer}): where in seq order the claim starts reading, refreshed from the database now
 * and then, so a relay keeps one repository for all its claims. Statements outside a caller's
 * transaction run in their own transaction (autocommit).
 */
public final class JooqOutboxRepository {

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final MessageRows rows;
  private final MessageStore store;
  private final MessageClaimer claimer;
  private final MessageSettler settler;
  private final DeadLetterQueries deadLetters;
  private final BacklogQueries backlog;
  private final Purger purger;
  private final BlockedQueries blocked;
  private final OutcomeStore outcomes;
  private final TopicPauses pauses;

  /** Jackson's defaults for headers and payloads; thread-safe once built, so shared. */
  private static final ObjectMapper DEFAULT_MAPPER = new ObjectMapper();

  /** A repository on {@code dsl} with Jackson's default object mapper. */
  public JooqOutboxRepository(DSLContext dsl) {
    this(dsl, DEFAULT_MAPPER);
  }

  /**
   * @param dsl where relay-side and operator statements run; each runs in its own transaction
   * @param mapper reads and writes headers, and is handed to messages for {@link
   *     OutboxMessage#payloadAs}
   */
  public JooqOutboxRepository(DSLContext dsl, ObjectMapper mapper) {
    this(dsl, mapper, System::nanoTime);
  }

  /** For tests: {@code nanoTime} times the claim's floor refreshes ({@link ClaimFloor}). */
  JooqOutboxRepository(DSLContext dsl, ObjectMapper mapper, LongSupplier nanoTime) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
    this.dialect = OutboxDialect.of(dsl.dialect());
    MessageRows rows = new MessageRows(Objects.requireNonNull(mapper, "mapper"));
    this.rows = rows;
    this.store = new MessageStore(dialect, rows);
    this.settler = new MessageSettler(dsl);
    this.claimer = new MessageClaimer(dsl, dialect, rows, settler, nanoTime);
    this.deadLetters = new DeadLetterQueries(dsl, rows);
    this.backlog = new BacklogQueries(dsl, dialect);
    this.purger = new Purger(dsl);
    this.blocked = new BlockedQueries(dsl);
    this.outcomes = new OutcomeStore(dsl, rows);
    this.pauses = new TopicPauses(dsl);
  }

  /** The topics an operator paused, which no relay claims. */
  public TopicPauses pauses() {
    return pauses;
  }

  /**
   * The outcomes beyond sent and retry: outcome unknown and its reconciliation and resolution,
   * reschedule.
   */
  public OutcomeStore outcomes() {
    return outcomes;
  }

  // ---------------------------------------------------------------- writer and inbox

  /**
   * Whether this database keeps messages in the event log ({@code internal.eventlog}): writers
   * append there and the relay reads from there; this repository's tables hold the rest.
   */
  public boolean appendsEvents() {
    return dialect.appendsEvents();
  }

  /** Whether {@code e} says a table the statement names does not exist in this database. */
  public boolean isMissingTable(org.jooq.exception.DataAccessException e) {
    return dialect.isMissingTable(e);
  }

  /** How this repository maps messages and headers (its object mapper's). */
  public MessageRows rows() {
    return rows;
  }

  /**
   * Inserts {@code message} on the caller's transaction {@code tx}, unless its id is already
   * stored. Never aborts the caller's transaction on a duplicate id.
   *
   * @return true when inserted, false when a row with this id already exists
   */
  public boolean insert(DSLContext tx, NewMessage message) {
    return store.insert(tx, message);
  }

  /** The stored content of message {@code id}, read on {@code tx}, for an idempotency check. */
  public Optional<NewMessage> findStored(DSLContext tx, String id) {
    return store.findStored(tx, id);
  }

  /**
   * Makes relays wake when {@code tx} commits, where the database can tell them, with a statement
   * inside {@code tx} (PostgreSQL: {@code NOTIFY}). The fallback for a write whose transaction has
   * no after-commit hook: PostgreSQL's notification lock makes such writers commit one at a time.
   */
  public void notifyRelays(DSLContext tx, String topic) {
    dialect.notifyRelays(tx, topic);
  }

  /** Whether {@link #notifyOtherProcesses} reaches relays in other processes (PostgreSQL). */
  public boolean notifiesOtherProcesses() {
    return dialect.notifiesOtherProcesses();
  }

  /**
   * Wakes listening relays in every process with one notification, sent now from a connection of
   * this repository's own, in its own transaction; nothing where the database has no notifications.
   */
  public void notifyOtherProcesses() {
    dialect.notifyOtherProcesses(dsl);
  }

  /**
   * Records that {@code consumer} handles {@code messageId}, on the consumer's transaction. Needs
   * no repository instance (and no object mapper): the inbox has no settings.
   *
   * @return true when recorded now, false when it was already recorded
   */
  public static boolean recordSeen(DSLContext tx, String consumer, String messageId, Instant now) {
    return new InboxStore(OutboxDialect.of(tx.dialect())).recordSeen(tx, consumer, messageId, now);
  }

  /**
   * Records that {@code consumer} handles {@code messageId} and runs {@code work} in one new
   * transaction on {@code dsl}, unless it was recorded already; a deadlock victim of the record's
   * insert runs the transaction again (see {@code InboxStore#runOnce}).
   *
   * @param now the time to record, read once per attempt
   * @return true when the work ran, false when the message was recorded already
   */
  public static boolean runOnce(
      DSLContext dsl,
      String consumer,
      String messageId,
      Supplier<Instant> now,
      Consumer<DSLContext> work) {
    return new InboxStore(OutboxDialect.of(dsl.dialect()))
        .runOnce(dsl, consumer, messageId, now, work);
  }

  // ---------------------------------------------------------------- relay

  /**
   * Claims up to {@code limit} messages in {@code seq} order, leasing them to {@code claimToken}
   * until {@code now + lease} and counting one attempt each; the returned messages carry the new
   * attempt count.
   *
   * <p>For each aggregate that appears, its messages form a <em>run</em>: the aggregate's oldest
   * pending (not sent, not dead) message, which must itself be ready (available at {@code now}, not
   * leased, of one of {@code topics}), followed by the aggregate's next pending messages in seq
   * order, each ready, {@code maxRun} messages at most. The run stops before the first pending
   * message that is not ready (not yet available, leased by anyone, or of a topic not in {@code
   * topics}). A dead message is not pending: a run passes over it, as a dead message does not hold
   * its aggregate back. Nothing of an aggregate is claimed while an older pending message of it is
   * not ready. {@code maxRun} 1 claims each aggregate's oldest pending message only.
   *
   * <p>A run may be shorter than {@code maxRun} allows, never longer and never with a gap: it ends
   * at the limit, where the claim's scan of the oldest pending rows ends (about {@code 4 x limit}
   * rows; beyond it, a claim that came up short takes aggregates' oldest messages alone), and
   * before a message that another claim holds locked at this moment.
   *
   * <p>Concurrent claimers on any number of connections or machines never receive the same row
   * while its lease holds. A claimed row that cannot become a message (headers edited by hand into
   * something other than a JSON object of strings) is dead-lettered at once and left out, and the
   * rest of its aggregate's run is released, so the list may be shorter than the rows taken.
   *
   * @throws IllegalArgumentException when {@code maxRun} is below 1
   */
  public List<OutboxMessage> claim(
      Set<String> topics, int limit, int maxRun, Duration lease, String claimToken, Instant now) {
    return claim(new ClaimRequest(topics, limit, maxRun, lease, claimToken, now, HeldClaims.NONE));
  }

  /**
   * {@link #claim(Set, int, int, Duration, String, Instant)} for a claimer that holds the claims
   * {@link ClaimRequest#held} in flight: a run may also start right behind the claimer's own leased
   * rows of its aggregate (every older pending message of the aggregate held by one of those
   * claims, their leases still running, at most {@code maxRun} of them), so that a busy aggregate's
   * next run is claimed while its current one is in flight. The claimer must deliver such a run
   * only after those rows succeeded, and give it back otherwise. Everything else is as there.
   */
  public List<OutboxMessage> claim(ClaimRequest request) {
    return claimer.claim(request);
  }

  /**
   * {@link #claim(Set, int, int, Duration, String, Instant)} with runs of one: each aggregate's
   * oldest pending message, if it is ready.
   */
  public List<OutboxMessage> claim(
      Set<String> topics, int limit, Duration lease, String claimToken, Instant now) {
    return claim(topics, limit, 1, lease, claimToken, now);
  }

  /**
   * Marks the claimed rows {@code seqs} sent, in one statement; returns how many it still owned.
   */
  public int markSent(String claimToken, Collection<Long> seqs, Instant now) {
    return settler.markSent(claimToken, seqs, now);
  }

  /** Records a failed attempt; the row is claimable again at {@code nextAttemptAt}. */
  public boolean retryLater(String claimToken, long seq, String error, Instant nextAttemptAt) {
    return settler.retryLater(claimToken, seq, error, nextAttemptAt);
  }

  /** Dead-letters the row after its last failed attempt, with {@code error}. */
  public boolean deadLetter(String claimToken, long seq, String error, Instant now) {
    return settler.deadLetter(claimToken, seq, error, now);
  }

  /**
   * Dead-letters a row whose attempts were used up by crashes or expired leases, without running
   * it. The claim that found it counted one more attempt than it made, so the count is set back to
   * {@code maxAttempts}.
   */
  public boolean deadLetterExhausted(
      String claimToken, long seq, int maxAttempts, String error, Instant now) {
    return settler.deadLetterExhausted(claimToken, seq, maxAttempts, error, now);
  }

  /**
   * Gives back claimed rows that were not handled, and the attempt their claim counted, so another
   * relay delivers them at once without using an attempt. Returns how many were released.
   */
  public int release(String claimToken, Collection<Long> seqs) {
    return settler.release(claimToken, seqs);
  }

  /**
   * Extends the lease of the rows {@code seqs} still owned by one of {@code claimTokens} to {@code
   * until} (the relay's heartbeat); returns how many rows it extended.
   */
  public int extendLeases(Collection<String> claimTokens, Collection<Long> seqs, Instant until) {
    return settler.extendLeases(claimTokens, seqs, until);
  }

  /**
   * A listener that calls {@code onNotification} when a writer commits, or null where the database
   * has no notifications.
   */
  public WakeupListener wakeupListener(Runnable onNotification, Duration reconnectDelay) {
    return dialect.wakeupListener(
        dsl.configuration().connectionProvider(),
        OutboxNaming.notifyChannel(dsl.settings()),
        onNotification,
        reconnectDelay);
  }

  // ---------------------------------------------------------------- operator

  /** Deletes sent messages and inbox rows older than {@code cutoff}, {@code batchSize} a time. */
  public PurgeResult purge(Instant cutoff, int batchSize) {
    return purger.purge(cutoff, batchSize);
  }

  /**
   * A purge of what is older than {@code cutoff} that deletes {@code batchSize} rows a call of
   * {@link PurgeRun#next}, for a caller that paces it.
   */
  public PurgeRun startPurge(Instant cutoff, int batchSize) {
    return purger.start(cutoff, batchSize);
  }

  /** What {@link #purge} with {@code cutoff} would delete now, counted. */
  public PurgeResult purgeCount(Instant cutoff) {
    return purger.count(cutoff);
  }

  /** Totals over every topic, from one read of the table. */
  public OutboxStats stats(Instant now) {
    return OutboxStats.sum(statsByTopic(now).values());
  }

  /** Statistics per topic, sorted by topic. Reads every row once: for operators, not gauges. */
  public Map<String, OutboxStats> statsByTopic(Instant now) {
    return backlog.statsByTopic(now);
  }

  /** The pending count, for a gauge. */
  public long pendingCount() {
    return backlog.pendingCount();
  }

  /** Age of the oldest pending message at {@code now}; {@link Duration#ZERO} when none. */
  public Duration oldestPendingAge(Instant now) {
    return backlog.oldestPendingAge(now);
  }

  /** The dead-letter count, for a gauge or a health check. */
  public long deadCount() {
    return backlog.deadCount();
  }

  public DeadLetterPage deadLetters(DeadLetterQuery query) {
    return deadLetters.deadLetters(query);
  }

  /** Requeues dead letter {@code id}; false when no dead letter has this id. */
  public boolean requeue(String id, Instant now) {
    return deadLetters.requeue(DeadLetterQueries.byId(id), now) == 1;
  }

  public int requeueTopic(String topic, Instant now) {
    return deadLetters.requeue(DeadLetterQueries.byTopic(topic), now);
  }

  public int requeueAll(Instant now) {
    return deadLetters.requeue(DeadLetterQueries.any(), now);
  }

  /** Pending messages waiting behind an outcome-unknown message of their aggregate. */
  public BlockedMessages blockedBehindUnknown() {
    return blocked.behindUnknown();
  }

  /** Pending messages waiting behind a message of their aggregate that waits for its retry. */
  public BlockedMessages blockedBehindRetry(Instant now) {
    return blocked.behindRetry(now);
  }

  public Optional<MessageState> message(String id, Instant now) {
    return deadLetters.message(id, now);
  }
}
