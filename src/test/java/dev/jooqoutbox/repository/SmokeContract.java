package dev.jooqoutbox.repository;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.MutableClock;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SmokeContract {
  private final TestDatabase.Kind kind;
  private TestDatabase db;

  SmokeContract(TestDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeAll
  void setUp() {
    db = TestDatabase.migrated(kind);
  }

  @AfterAll
  void tearDown() {
    db.close();
  }

  @Test
  void writeClaimMark() {
    MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");
    Outbox outbox = Outbox.builder(db.dsl()).clock(clock).build();
    db.dsl()
        .transaction(
            tx -> {
              outbox.write(tx.dsl(), "a", "t.one", Map.of("k", 1));
              outbox.message("a", "t.one", "{\"k\":2}").header("h", "v").write(tx.dsl());
              outbox.write(tx.dsl(), "b", "t.one", Map.of("k", 3));
            });
    JooqOutboxRepository repo = new JooqOutboxRepository(db.dsl());
    List<OutboxMessage> claimed =
        repo.claim(Set.of("t.one"), 10, Duration.ofSeconds(30), "tok", clock.instant());
    assertThat(claimed).extracting(OutboxMessage::aggregate).containsExactly("a", "b");
    assertThat(claimed.get(0).attempt()).isEqualTo(1);
    assertThat(
            repo.markSent(
                "tok", claimed.stream().map(OutboxMessage::seq).toList(), clock.instant()))
        .isEqualTo(2);
    List<OutboxMessage> next =
        repo.claim(Set.of("t.one"), 10, Duration.ofSeconds(30), "tok2", clock.instant());
    assertThat(next).hasSize(1);
    assertThat(next.get(0).headers()).isEqualTo(Map.of("h", "v"));
    assertThat(next.get(0).payload().get("k").asInt()).isEqualTo(2);
    assertThat(repo.stats(clock.instant())).isEqualTo(new OutboxStats(1, 1, 0, 2, Duration.ZERO));
    assertThat(repo.purge(clock.instant().plusSeconds(1), 1)).isEqualTo(new PurgeResult(2, 0));
  }
}
