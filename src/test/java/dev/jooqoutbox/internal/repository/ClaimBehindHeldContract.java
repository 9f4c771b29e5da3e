package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.impl.DefaultExecuteListenerProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JooqOutboxRepository#claim(ClaimRequest)} with claims held: a claimer's next run of an
 * aggregate may start right behind its own leased rows of it, and nowhere else a run could not
 * start without them.
 */
abstract class ClaimBehindHeldContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Set<String> TOPICS = Set.of("t");

  private ClaimRows rows;
  private final Set<String> tokens = new HashSet<>();
  private int heldRows;

  ClaimBehindHeldContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void buildRows() {
    rows = new ClaimRows(db.dsl(), outbox);
    tokens.clear();
    heldRows = 0;
  }

  @Test
  void aRunIsClaimedRightBehindTheClaimersOwnLeasedRowsOfItsAggregate() {
    List<Long> a = writeAll("a", 6);
    long b1 = rows.write("b", "t");

    assertThat(claimHolding("t1", 3))
        .extracting(OutboxMessage::seq)
        .containsExactly(a.get(0), a.get(1), a.get(2), b1);
    assertThat(claimHolding("t2", 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(3, 6));
    // Without its claims held, nothing of a is ready: its oldest messages are leased.
    assertThat(repository.claim(TOPICS, 10, 3, LEASE, "t4", clock.instant())).isEmpty();
  }

  @Test
  void notBehindRowsAnotherClaimerHolds() {
    List<Long> a = writeAll("a", 6);
    assertThat(repository.claim(TOPICS, 10, 3, LEASE, "other", clock.instant())).hasSize(3);

    assertThat(claimHolding("mine", 3)).isEmpty();
    assertThat(row(a.get(3)).getClaimToken()).isNull();
  }

  @Test
  void notBehindOwnRowsWhoseLeaseRanOut() {
    List<Long> a = writeAll("a", 6);
    assertThat(claimHolding("t1", 3)).hasSize(3);
    clock.advance(LEASE.plusSeconds(1));

    // Their lease ran out: they are ready again and the run starts at the aggregate's head.
    assertThat(claimHolding("t2", 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(0, 3));
  }

  @Test
  void notBehindARowThatBacksOffAmongTheHeldOnes() {
    List<Long> a = writeAll("a", 6);
    assertThat(claimHolding("t1", 2)).hasSize(2);
    repository.retryLater("t1", a.get(1), "failed", clock.instant().plusSeconds(60));

    assertThat(claimHolding("t2", 3)).isEmpty();
  }

  @Test
  void heldRowsAfterAReadyOneLetNothingBehindThemThrough() {
    List<Long> a = writeAll("a", 6);
    assertThat(claimHolding("t1", 3)).hasSize(3);
    // The oldest is given back, the next two are still held: the run is the oldest alone, never
    // the rows after the held ones.
    repository.release("t1", List.of(a.get(0)));

    assertThat(claimHolding("t2", 5)).extracting(OutboxMessage::seq).containsExactly(a.get(0));
  }

  @Test
  void atMostOneRunIsClaimedBehindTheHeldRowsOfAnAggregate() {
    List<Long> a = writeAll("a", 12);
    assertThat(claimHolding("t1", 3)).hasSize(3);
    assertThat(claimHolding("t2", 3)).hasSize(3);

    // Six of a are held: more than a run (maxRun 3), so the next run waits for them.
    assertThat(claimHolding("t3", 3)).isEmpty();
    repository.markSent("t1", a.subList(0, 3), clock.instant());
    assertThat(claimHolding("t4", 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(6, 9));
  }

  @Test
  void heldRowsDoNotCrowdTheWindowOut() {
    // 30 aggregates with 10 held rows each at the front: more held rows than a claim of 10 reads
    // of its own (ClaimQueries.scanWindow), and its next runs are still found behind them.
    int aggregates = 30;
    for (int n = 0; n < 20; n++) {
      for (int g = 0; g < aggregates; g++) {
        rows.write("agg-" + g, "t");
      }
    }
    List<OutboxMessage> first =
        repository.claim(
            new ClaimRequest(TOPICS, 300, 10, LEASE, "t1", clock.instant(), HeldClaims.NONE));
    assertThat(first).hasSize(300);
    assertThat(300).isGreaterThan(ClaimQueries.scanWindow(10));

    List<OutboxMessage> next =
        repository.claim(
            new ClaimRequest(
                TOPICS, 10, 10, LEASE, "t2", clock.instant(), new HeldClaims(Set.of("t1"), 300)));

    long lastHeld = first.get(first.size() - 1).seq();
    assertThat(next).hasSize(10).allMatch(m -> m.seq() > lastHeld);
  }

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

  /** Claims up to 10 with runs of {@code maxRun}, holding every claim made so far. */
  private List<OutboxMessage> claimHolding(String token, int maxRun) {
    HeldClaims held = new HeldClaims(tokens, heldRows);
    List<OutboxMessage> claimed =
        repository.claim(new ClaimRequest(TOPICS, 10, maxRun, LEASE, token, clock.instant(), held));
    tokens.add(token);
    heldRows += claimed.size();
    return claimed;
  }

  private List<Long> writeAll(String aggregate, int count) {
    return IntStream.range(0, count).mapToObj(i -> rows.write(aggregate, "t")).toList();
  }
}
