package dev.jooqoutbox.internal.repository;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.Resolution;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Everything the relay engine asks of the rows it delivers: the claim, the settles, giving back,
 * the heartbeat's extension, the outcomes of unknown deliveries, and the housekeeping's reads and
 * purge. The engine reaches its database through this seam only, so that a test can run the same
 * engine on a reference model of these semantics kept in memory, and check what it shows against
 * the databases (the same contract tests pass on both).
 *
 * <p>Guarantees every implementation keeps:
 *
 * <ul>
 *   <li>{@link #claim} hands out only <em>ready</em> messages (not sent, not dead, not outcome
 *       unknown, available, not leased, of a requested topic), each run of an aggregate in seq
 *       order without a gap, starting at the aggregate's oldest pending message or right behind
 *       rows of it the claimer holds in flight ({@link ClaimRequest#held}). No two claims hold one
 *       row while its lease runs.
 *   <li>Every settle matches the claim token: a claimer whose row was claimed by another after its
 *       lease ran out changes nothing (false or 0 is a lost race, not an error).
 * </ul>
 */
public interface RelayStore {

  /** Claims up to {@code request.limit()} ready messages in runs; see the class comment. */
  List<OutboxMessage> claim(ClaimRequest request);

  /** Marks the claimed rows {@code seqs} sent; returns how many the token still owned. */
  int markSent(String claimToken, Collection<Long> seqs, Instant now);

  /** Records a failed attempt; the row is claimable again at {@code nextAttemptAt}. */
  boolean retryLater(String claimToken, long seq, String error, Instant nextAttemptAt);

  /** Dead-letters the row after its last failed attempt, with {@code error}. */
  boolean deadLetter(String claimToken, long seq, String error, Instant now);

  /**
   * Dead-letters a row whose attempts crashes or expired leases used up, without running it; its
   * attempt count is set back to {@code maxAttempts}.
   */
  boolean deadLetterExhausted(
      String claimToken, long seq, int maxAttempts, String error, Instant now);

  /**
   * Gives back claimed rows that were not handled, with the attempt their claim counted; returns
   * how many it gave back.
   */
  int release(String claimToken, Collection<Long> seqs);

  /**
   * Extends to {@code until} the leases of the rows {@code seqs} still owned by one of {@code
   * claimTokens}; returns how many it extended.
   */
  int extendLeases(Collection<String> claimTokens, Collection<Long> seqs, Instant until);

  /**
   * The handler of the claimed row could not learn the outcome: held for reconciliation from {@code
   * nextCheck} on, holding its aggregate back. A remote reference already stored is kept when
   * {@code remoteRef} is null.
   */
  boolean markUnknown(
      String token, long seq, String remoteRef, String error, Instant now, Instant nextCheck);

  /** The claimed row is due again at {@code at}; its attempt is given back, its error kept. */
  boolean reschedule(String token, long seq, Instant at);

  /**
   * Leases up to {@code limit} outcome-unknown rows of {@code topics} whose next check is due, in
   * seq order, without counting an attempt.
   */
  List<UnknownClaim> claimDueUnknown(
      Set<String> topics, int limit, Duration lease, String token, Instant now);

  /** A reconciler still does not know: asked again from {@code nextCheck} on. */
  boolean stillUnknown(String token, long seq, String remoteRef, Instant nextCheck);

  /** A reconciler's resolution of the row it leased; false when another resolution came first. */
  boolean resolveClaimed(String token, long seq, Resolution resolution, String reason, Instant now);

  /**
   * The topics an operator paused: the relay leaves them out of the topics it claims (read once a
   * poll interval).
   */
  Set<String> pausedTopics();

  /** How many messages wait for a reconciliation. */
  long unknownCount();

  /** How many messages are pending (for the backlog gauge). */
  long pendingCount();

  /** The age of the oldest pending message at {@code now}, zero when none is pending. */
  Duration oldestPendingAge(Instant now);

  /** A purge of what was sent before {@code cutoff}, {@code batchSize} rows a step. */
  PurgeRun startPurge(Instant cutoff, int batchSize);

  /**
   * A listener that calls {@code onNotification} when a writer commits, or null where the store has
   * no notifications (the relay then polls).
   */
  WakeupListener wakeupListener(Runnable onNotification, Duration reconnectDelay);

  /** The relay starts: the store may start work of its own (nothing where it has none). */
  default void start() {}

  /**
   * A drain on the caller's thread ended ({@code drainOnce}): the store writes what it keeps in
   * memory to write later and gives back what it holds, so that the database shows everything
   * settled so far and another relay can take over. Nothing where every settle writes at once.
   */
  default void flush() {}

  /** The relay stops: the store gives back what it holds (after {@link #flush}). */
  default void close() {}
}
