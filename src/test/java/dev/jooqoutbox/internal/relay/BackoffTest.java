package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link Backoff}: equal jitter within its bounds, drawn from the message and the attempt. */
class BackoffTest {

  private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5));

  @Test
  void theWaitDoublesWithinHalfAndAllOfItsStepUpToTheCap() {
    for (long seq = 1; seq <= 200; seq++) {
      assertThat(backoff.after(1, seq)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));
      assertThat(backoff.after(4, seq)).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(8));
      assertThat(backoff.after(30, seq))
          .isBetween(Duration.ofMillis(150_000), Duration.ofMinutes(5));
    }
  }

  @Test
  void messagesThatFailedTogetherSpreadAndEachWaitIsTheSameOnEveryRun() {
    Set<Duration> waits = new HashSet<>();
    for (long seq = 1; seq <= 100; seq++) {
      waits.add(backoff.after(3, seq));
      assertThat(backoff.after(3, seq)).isEqualTo(backoff.after(3, seq));
    }
    assertThat(waits).as("100 messages' waits after attempt 3").hasSizeGreaterThan(90);
  }
}
