package dev.jooqoutbox.internal.wakeup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.internal.naming.OutboxNaming;
import dev.jooqoutbox.testing.TestDatabase;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;

/**
 * In this JVM a commit wakes the relays of its own outbox only: relays of two named outboxes and of
 * the default one on one database are registered apart (the key is the same on every dialect: the
 * URL, and the outbox table of a named outbox).
 */
class WakeupsByOutboxTest {

  @Test
  void aCommitOfOneOutboxWakesOnlyThatOutboxsRelays() {
    try (TestDatabase db = TestDatabase.empty(TestDatabase.Kind.SQLITE)) {
      DSLContext plain = db.dsl();
      DSLContext alpha = OutboxNaming.apply(plain, OutboxName.of("alpha"));
      DSLContext beta = OutboxNaming.apply(plain, OutboxName.of("beta"));
      AtomicInteger plainWakes = new AtomicInteger();
      AtomicInteger alphaWakes = new AtomicInteger();
      AtomicInteger betaWakes = new AtomicInteger();
      try (Wakeups.Registration p = Wakeups.register(plain, plainWakes::incrementAndGet);
          Wakeups.Registration a = Wakeups.register(alpha, alphaWakes::incrementAndGet);
          Wakeups.Registration b = Wakeups.register(beta, betaWakes::incrementAndGet)) {
        Wakeups.signal(Wakeups.keyOf(alpha));
        assertThat(alphaWakes).hasValue(1);
        assertThat(betaWakes).hasValue(0);
        assertThat(plainWakes).hasValue(0);

        Wakeups.signal(Wakeups.keyOf(plain));
        assertThat(plainWakes).hasValue(1);
        assertThat(alphaWakes).hasValue(1);
        assertThat(betaWakes).hasValue(0);
      }
      // The default outbox's key is the database's URL alone, as before named outboxes.
      assertThat(Wakeups.keyOf(plain))
          .isEqualTo(plain.connectionResult(c -> c.getMetaData().getURL()));
    }
  }
}
