package dev.jooqoutbox;

import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The default message id: a version-7 UUID (RFC 9562), 48 bits of epoch milliseconds followed by 74
 * random bits. Ids sort roughly by creation time, which keeps B-tree inserts local.
 */
final class TimeOrderedIds implements Supplier<String> {

  private final Clock clock;

  TimeOrderedIds(Clock clock) {
    this.clock = clock;
  }

  @Override
  public String get() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long millis = clock.millis() & 0xFFFF_FFFF_FFFFL;
    long high = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(high, low).toString();
  }
}
