package dev.jooqoutbox.internal.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.ReferenceStore;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The model passes the contract the three databases pass, and models a late commit. */
class ReferenceRelayStoreTest extends RelayStoreContract {

  @Override
  StoreSubject open() {
    return new ReferenceStoreSubject();
  }

  @Test
  void aWriteCommittedAfterALaterOneIsUnseenUntilItsCommitThenClaimed() {
    MutableClock clock = new MutableClock(dev.jooqoutbox.testing.DatabaseFixture.START);
    ReferenceStore store = new ReferenceStore(clock);
    long early = store.begin("a", "t", Duration.ZERO);
    long late = store.write("a", "t", Duration.ZERO);
    var claim =
        new ClaimRequest(
            Set.of("t"),
            10,
            5,
            Duration.ofSeconds(30),
            "token-1",
            clock.instant(),
            HeldClaims.NONE);

    assertThat(store.claim(claim)).extracting(OutboxMessage::seq).containsExactly(late);
    store.markSent("token-1", java.util.List.of(late), clock.instant());
    store.commit(early);
    assertThat(store.claim(claim)).extracting(OutboxMessage::seq).containsExactly(early);

    long rolledBack = store.begin("b", "t", Duration.ZERO);
    store.rollback(rolledBack);
    assertThat(store.row(rolledBack)).isNull();
  }
}
