package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.JSON;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only a database's claim ({@link JooqOutboxRepository#claim(ClaimRequest)}) does, beyond the
 * store's seam that {@link ClaimContract}, {@link ClaimRunContract} and {@link
 * ClaimBehindHeldContract} test on the databases and the model alike: another claim not yet
 * committed (its row locks), a give-back that commits between the claim's two passes, corrupt rows,
 * and the claim's floor ({@link ClaimFloor}): a row that becomes pending below it is still found,
 * and still holds its aggregate back.
 */
abstract class DatabaseClaimContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Set<String> TOPICS = Set.of("t");

  private ClaimRows rows;

  /** The time the claim's floor refreshes by; moved by hand. */
  private final AtomicLong ticker = new AtomicLong();

  private final Set<String> tokens = new HashSet<>();
  private int heldRows;

  DatabaseClaimContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void buildOutbox() {
    repository = new JooqOutboxRepository(db.dsl(), new ObjectMapper(), ticker::get);
    rows = new ClaimRows(db.dsl(), clock);
    tokens.clear();
    heldRows = 0;
  }

  // ---------------------------------------------------------------- another claim's locks

  @Test
  void inFlightClaimOfAnOlderMessageIsSkippedAndStillBlocksItsAggregate() throws Exception {
    long a1 = write("a", "t");
    write("a", "t");
    long b1 = write("b", "t");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      // Another relay's claim of a1, not yet committed: it holds a1's row lock on PostgreSQL and
      // MariaDB, the write lock on SQLite.
      ClaimRows.leaseUncommitted(connection, db.dialect(), a1, clock.instant().plus(LEASE));

      Future<List<OutboxMessage>> claim = other.submit(() -> claim("token", 10, 1));
      if (db.kind() != TestDatabase.Kind.SQLITE) {
        // Skip-locked: the claim passes over a1 at once, and a2 still waits behind it.
        assertThat(claim.get(10, TimeUnit.SECONDS))
            .extracting(OutboxMessage::seq)
            .containsExactly(b1);
      }
      connection.commit();
      // SQLite's claim waited for the write lock, then found a1 leased.
      assertThat(claim.get(10, TimeUnit.SECONDS))
          .extracting(OutboxMessage::seq)
          .containsExactly(b1);
      connection.setAutoCommit(true);
    } finally {
      other.shutdownNow();
    }
    assertThat(row(a1).getClaimToken()).isEqualTo("in-flight");
  }

  @Test
  void runIsCutBeforeARowAnotherClaimHoldsLockedAndTheRowsAfterItAreNotLeased() throws Exception {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    long b1 = write("b", "t");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (Connection connection = db.dataSource().getConnection()) {
      // Another relay's claim of a2, not yet committed: it holds a2's row lock on PostgreSQL and
      // MariaDB (this claim skips a2 although it saw it ready), the write lock on SQLite (this
      // claim waits, then finds a2 leased).
      ClaimRows.leaseUncommitted(connection, db.dialect(), a2, clock.instant().plus(LEASE));

      Future<List<OutboxMessage>> claim = other.submit(() -> claim("token", 10, 5));
      if (db.kind() != TestDatabase.Kind.SQLITE) {
        assertThat(claim.get(10, TimeUnit.SECONDS))
            .extracting(OutboxMessage::seq)
            .containsExactly(a1, b1);
      }
      connection.commit();
      assertThat(claim.get(10, TimeUnit.SECONDS))
          .extracting(OutboxMessage::seq)
          .containsExactly(a1, b1);
      connection.setAutoCommit(true);
    } finally {
      other.shutdownNow();
    }
    // a3 comes after the row the claim could not take: not leased, its attempt not counted.
    assertThat(row(a3).getClaimToken()).isNull();
    assertThat(row(a3).getLockedUntil()).isNull();
    assertThat(row(a3).getAttempts()).isZero();
    assertThat(row(a2).getClaimToken()).isEqualTo("in-flight");
  }

  // ---------------------------------------------------------------- a give-back between the passes

  /**
   * The claimer gives its held rows of an aggregate back (its completer, on another connection)
   * between the claim's two passes: the first pass read them as held and took the run behind them,
   * then the head scan finds the aggregate's head ready again. The claim keeps the run and leaves
   * the head, never both: a5 to a9 with a0 in front of them is a run that skips a1 to a4, and the
   * relay would deliver a5 before them. (On SQLite the claim holds the write lock, so the give-back
   * commits after it.)
   */
  @Test
  void aHeadGivenBackBetweenThePassesIsNotClaimedInFrontOfTheRunBehindIt() throws Exception {
    List<Long> a = writeAll("a", 10);
    // Pending rows of a topic the claims do not take: the first pass reads a full window, so the
    // head scan runs after it.
    for (int i = 0; i < ClaimQueries.scanWindow(10) + 20; i++) {
      rows.write("elsewhere-" + i, "elsewhere");
    }
    assertThat(claimHolding("t1", 5))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(0, 5));

    CompletableFuture<Void> givenBack = new CompletableFuture<>();
    AtomicBoolean fired = new AtomicBoolean();
    ExecuteListener giveBackAfterTheRuns =
        new ExecuteListener() {
          @Override
          public void end(ExecuteContext ctx) {
            if (ctx.sql() != null && ctx.sql().contains("run_pos") && !fired.getAndSet(true)) {
              CompletableFuture.runAsync(() -> repository.release("t1", a.subList(0, 5)))
                  .whenComplete((v, e) -> givenBack.complete(null));
              try {
                givenBack.get(1, TimeUnit.SECONDS);
              } catch (TimeoutException sqliteWriteLock) {
                // Waits for the claim's write lock: commits after it.
              } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
              }
            }
          }
        };
    JooqOutboxRepository racing =
        new JooqOutboxRepository(
            db.dsl()
                .configuration()
                .derive(new DefaultExecuteListenerProvider(giveBackAfterTheRuns))
                .dsl());

    List<OutboxMessage> next =
        racing.claim(
            new ClaimRequest(
                TOPICS, 10, 5, LEASE, "t2", clock.instant(), new HeldClaims(tokens, heldRows)));
    givenBack.get(10, TimeUnit.SECONDS);

    assertThat(fired).isTrue();
    assertThat(next).extracting(OutboxMessage::seq).containsExactlyElementsOf(a.subList(5, 10));
    assertThat(row(a.get(0)).getClaimToken()).isNull();
  }

  // ---------------------------------------------------------------- corrupt rows

  @Test
  void corruptRowInARunIsDeadLetteredAndTheRestOfItsRunReleased() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    long a3 = write("a", "t");
    long b1 = write("b", "t");
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.HEADERS, JSON.json("[1, 2]"))
        .where(OUTBOX_MESSAGE.SEQ.eq(a2))
        .execute();

    List<OutboxMessage> first = claim("token-1", 10, 5);

    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1, b1);
    assertThat(row(a2).getDeadAt()).isNotNull();
    assertThat(row(a2).getLastError()).contains("corrupt row");
    assertThat(row(a3).getClaimToken()).isNull();
    assertThat(row(a3).getAttempts()).isZero();
    // a3 is claimed afresh behind the dead letter, once a1 is settled.
    assertThat(claim("token-2", 10, 5)).isEmpty();
    markSent("token-1", first);
    assertThat(claim("token-3", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a3);
  }

  @Test
  void corruptOldestMessageReleasesItsWholeRun() {
    long a1 = write("a", "t");
    long a2 = write("a", "t");
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.HEADERS, JSON.json("\"text\""))
        .where(OUTBOX_MESSAGE.SEQ.eq(a1))
        .execute();

    assertThat(claim("token-1", 10, 5)).isEmpty();
    assertThat(row(a1).getDeadAt()).isNotNull();
    assertThat(row(a2).getClaimToken()).isNull();
    assertThat(claim("token-2", 10, 5)).extracting(OutboxMessage::seq).containsExactly(a2);
  }

  // ---------------------------------------------------------------- the floor

  @Test
  void rowRequeuedBelowTheFloorStillHoldsItsAggregateBackAndIsFound() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    long a2 = write("a", "t");
    long c1 = write("c", "t");
    List<OutboxMessage> first = claim("token-1", 10, 1);
    assertThat(first).extracting(OutboxMessage::seq).containsExactly(a1, b1, c1);
    repository.deadLetter("token-1", a1, "poison", clock.instant());
    markSent("token-1", first.subList(1, 3));
    // Two refreshes later the floor is the oldest pending seq seen at the first: a2.
    refreshFloor();
    refreshFloor();
    long b2 = write("b", "t");
    assertThat(repository.requeue(row(a1).getId(), clock.instant())).isTrue();

    // a1 is pending again, below the floor: a2 must not overtake it, and a1 is found. Where the
    // window reads from the floor (MariaDB, SQLite) a claim it cannot fill finds a1 by the head
    // scan, which has no floor; on PostgreSQL the claim reads the parked rows below its floor
    // first.
    List<Long> taken = new ArrayList<>();
    claim("token-2", 1, 1).forEach(m -> taken.add(m.seq()));
    claim("token-3", 10, 1).forEach(m -> taken.add(m.seq()));
    assertThat(taken).containsExactlyInAnyOrder(a1, b2);
    assertThat(row(a2).getClaimToken()).isNull();
  }

  @Test
  void rowRequeuedBelowTheFloorIsClaimedBeforeLaterRowsOfItsNewWindow() {
    long a1 = write("a", "t");
    long b1 = write("b", "t");
    claim("token-1", 10, 1);
    repository.deadLetter("token-1", a1, "poison", clock.instant());
    repository.markSent("token-1", List.of(b1), clock.instant());
    List<Long> c = writeAll("c", 3);
    refreshFloor();
    refreshFloor();
    assertThat(repository.requeue(row(a1).getId(), clock.instant())).isTrue();
    // The window starts at c's first message: a full claim of c's run leaves a1 out.
    assertThat(claim("token-2", 3, 3)).extracting(OutboxMessage::seq).containsExactlyElementsOf(c);

    refreshFloor();
    refreshFloor();
    List<Long> d = writeAll("d", 2);
    // Now a1 is the oldest pending row the floor was taken from, and the window starts there.
    assertThat(claim("token-3", 2, 3)).extracting(OutboxMessage::seq).containsExactly(a1, d.get(0));
  }

  // ---------------------------------------------------------------- helpers

  /** Lets a floor period pass and claims nothing, which refreshes the floor. */
  private void refreshFloor() {
    ticker.addAndGet(ClaimFloor.PERIOD.toNanos() * 100);
    repository.claim(Set.of("no-such-topic"), 1, 1, LEASE, "refresh", clock.instant());
  }

  private List<OutboxMessage> claim(String token, int limit, int maxRun) {
    return repository.claim(TOPICS, limit, maxRun, LEASE, token, clock.instant());
  }

  /** Claims up to 10 with runs of {@code maxRun}, holding every claim made so far. */
  private List<OutboxMessage> claimHolding(String token, int maxRun) {
    HeldClaims held = new HeldClaims(tokens, heldRows);
    List<OutboxMessage> claimed =
        repository.claim(new ClaimRequest(TOPICS, 10, maxRun, LEASE, token, clock.instant(), held));
    tokens.add(token);
    heldRows += claimed.size();
    return claimed;
  }

  private void markSent(String token, List<OutboxMessage> messages) {
    assertThat(
            repository.markSent(
                token, messages.stream().map(OutboxMessage::seq).toList(), clock.instant()))
        .isEqualTo(messages.size());
  }

  private long write(String aggregate, String topic) {
    return rows.write(aggregate, topic);
  }

  private List<Long> writeAll(String aggregate, int count) {
    return IntStream.range(0, count).mapToObj(i -> write(aggregate, "t")).toList();
  }
}
