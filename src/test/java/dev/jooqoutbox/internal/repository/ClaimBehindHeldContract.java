package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim ({@link RelayStore#claim}) with claims held: a claimer's next run of an aggregate may
 * start right behind its own leased rows of it, and nowhere else a run could not start without
 * them. Said through the store's seam: it runs on the three databases and on the model ({@code
 * ReferenceStore}); a give-back racing a database's two claim passes is {@link
 * DatabaseClaimContract}'s.
 */
abstract class ClaimBehindHeldContract extends StoreContract {

  private static final Set<String> TOPICS = Set.of("t");

  private final Set<String> tokens = new HashSet<>();
  private int heldRows;

  @BeforeEach
  void forgetHeldClaims() {
    tokens.clear();
    heldRows = 0;
  }

  @Test
  void aRunIsClaimedRightBehindTheClaimersOwnLeasedRowsOfItsAggregate() {
    List<Long> a = writeAll("a", 6);
    long b1 = write("b", "t");

    assertThat(claimHolding("t1", 3))
        .extracting(OutboxMessage::seq)
        .containsExactly(a.get(0), a.get(1), a.get(2), b1);
    assertThat(claimHolding("t2", 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(3, 6));
    // Without its claims held, nothing of a is ready: its oldest messages are leased.
    assertThat(claim(TOPICS, 10, 3, "t4")).isEmpty();
  }

  @Test
  void notBehindRowsAnotherClaimerHolds() {
    List<Long> a = writeAll("a", 6);
    assertThat(claim(TOPICS, 10, 3, "other")).hasSize(3);

    assertThat(claimHolding("mine", 3)).isEmpty();
    assertThat(row(a.get(3)).claimToken()).isNull();
  }

  @Test
  void notBehindOwnRowsWhoseLeaseRanOut() {
    List<Long> a = writeAll("a", 6);
    assertThat(claimHolding("t1", 3)).hasSize(3);
    clock().advance(LEASE.plusSeconds(1));

    // Their lease ran out: they are ready again and the run starts at the aggregate's head.
    assertThat(claimHolding("t2", 3))
        .extracting(OutboxMessage::seq)
        .containsExactlyElementsOf(a.subList(0, 3));
  }

  @Test
  void notBehindARowThatBacksOffAmongTheHeldOnes() {
    List<Long> a = writeAll("a", 6);
    assertThat(claimHolding("t1", 2)).hasSize(2);
    store().retryLater("t1", a.get(1), "failed", now().plusSeconds(60));

    assertThat(claimHolding("t2", 3)).isEmpty();
  }

  @Test
  void heldRowsAfterAReadyOneLetNothingBehindThemThrough() {
    List<Long> a = writeAll("a", 6);
    assertThat(claimHolding("t1", 3)).hasSize(3);
    // The oldest is given back, the next two are still held: the run is the oldest alone, never
    // the rows after the held ones.
    store().release("t1", List.of(a.get(0)));

    assertThat(claimHolding("t2", 5)).extracting(OutboxMessage::seq).containsExactly(a.get(0));
  }

  @Test
  void atMostOneRunIsClaimedBehindTheHeldRowsOfAnAggregate() {
    List<Long> a = writeAll("a", 12);
    assertThat(claimHolding("t1", 3)).hasSize(3);
    assertThat(claimHolding("t2", 3)).hasSize(3);

    // Six of a are held: more than a run (maxRun 3), so the next run waits for them.
    assertThat(claimHolding("t3", 3)).isEmpty();
    store().markSent("t1", a.subList(0, 3), now());
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
        write("agg-" + g, "t");
      }
    }
    List<OutboxMessage> first =
        store().claim(new ClaimRequest(TOPICS, 300, 10, LEASE, "t1", now(), HeldClaims.NONE));
    assertThat(first).hasSize(300);
    assertThat(300).isGreaterThan(ClaimQueries.scanWindow(10));

    List<OutboxMessage> next =
        store()
            .claim(
                new ClaimRequest(
                    TOPICS, 10, 10, LEASE, "t2", now(), new HeldClaims(Set.of("t1"), 300)));

    long lastHeld = first.get(first.size() - 1).seq();
    assertThat(next).hasSize(10).allMatch(m -> m.seq() > lastHeld);
  }

  /** Claims up to 10 with runs of {@code maxRun}, holding every claim made so far. */
  private List<OutboxMessage> claimHolding(String token, int maxRun) {
    HeldClaims held = new HeldClaims(tokens, heldRows);
    List<OutboxMessage> claimed =
        store().claim(new ClaimRequest(TOPICS, 10, maxRun, LEASE, token, now(), held));
    tokens.add(token);
    heldRows += claimed.size();
    return claimed;
  }
}
