package dev.jooqoutbox.internal.eventlog;

import java.util.Arrays;

/**
 * A PostgreSQL transaction snapshot as {@code txid_current_snapshot()} prints it, {@code
 * xmin:xmax:xip,...}: every transaction id below {@code xmax} and not in {@code xip} had ended when
 * it was taken, so a row it sees stays seen, and a row written by any other transaction is newer.
 * The messages committed between two snapshots of a shard are those of the transactions the first
 * does not see and the second does: that is the log's position, exact whatever a writer's
 * transaction took how long.
 *
 * @param xip the ids still running, ascending
 */
record Snapshot(long xmin, long xmax, long[] xip) {

  /** A snapshot that sees no transaction: where a new shard starts. */
  static final Snapshot NOTHING = new Snapshot(1, 1, new long[0]);

  /**
   * @throws IllegalArgumentException when {@code text} is not a snapshot
   */
  static Snapshot parse(String text) {
    String[] parts = text.split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException("not a transaction snapshot: " + text);
    }
    long[] xip =
        parts[2].isEmpty()
            ? new long[0]
            : Arrays.stream(parts[2].split(",")).mapToLong(Long::parseLong).sorted().toArray();
    return new Snapshot(Long.parseLong(parts[0]), Long.parseLong(parts[1]), xip);
  }

  /** Whether a row of transaction {@code txid} that committed is seen by this snapshot. */
  boolean sees(long txid) {
    return txid < xmax && Arrays.binarySearch(xip, txid) < 0;
  }

  /** The transactions this snapshot saw running that {@code later} sees ended: ascending. */
  long[] endedBy(Snapshot later) {
    return Arrays.stream(xip).filter(later::sees).toArray();
  }

  /** As PostgreSQL prints it; {@link #parse} reads it back. */
  String text() {
    StringBuilder b = new StringBuilder().append(xmin).append(':').append(xmax).append(':');
    for (int i = 0; i < xip.length; i++) {
      b.append(i == 0 ? "" : ",").append(xip[i]);
    }
    return b.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Snapshot s && xmin == s.xmin && xmax == s.xmax && Arrays.equals(xip, s.xip);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(xmax) * 31 + Arrays.hashCode(xip);
  }

  @Override
  public String toString() {
    return text();
  }
}
