package dev.jooqoutbox.internal.eventlog;

/**
 * Which of the {@value #COUNT} shards an aggregate's messages go to: the writer stores it with each
 * message, a relay leases whole shards, so every message of an aggregate is read by one relay at a
 * time, in order. The function is part of the stored format: changing it would move aggregates
 * between shards while messages of theirs are pending.
 */
public final class EventShards {

  /** The shards of every outbox (changeset 009 creates one row each). */
  public static final int COUNT = 16;

  private EventShards() {}

  /** The shard of {@code aggregate}: String.hashCode (fixed by the JLS), mixed, modulo COUNT. */
  public static short of(String aggregate) {
    int h = aggregate.hashCode();
    // MurmurHash3's finalizer: neighbouring keys (order-1, order-2) land on different shards.
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return (short) (h & (COUNT - 1));
  }
}
