package dev.jooqoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The relay's purge rests after each batch so that it runs at most a tenth of the time. */
class HousekeepingTest {

  @Test
  void afterEachBatchThePurgeRestsNineTimesAsLongAsTheBatchTook() {
    long took = Duration.ofMillis(2).toNanos();
    long rest = Housekeeping.restAfter(took);

    assertThat(rest).isEqualTo(Duration.ofMillis(18).toNanos());
    assertThat((double) took / (took + rest)).isEqualTo(0.1);
    assertThat(Housekeeping.restAfter(-1)).as("a clock that went back").isZero();
  }
}
