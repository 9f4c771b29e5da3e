package dev.jooqoutbox.internal.eventlog;

/**
 * Where a shard's reading stands. Every message of a transaction {@code lower} sees is behind it.
 * While {@code upper} is set, a batch is being read in chunks: the messages of the transactions
 * {@code upper} sees and {@code lower} does not, in (txid, seq) order, of which those up to {@code
 * (afterTxid, afterSeq)} are behind it too.
 */
record Cursor(Snapshot lower, Snapshot upper, long afterTxid, long afterSeq) {

  /** Where a shard that was never read starts. */
  static final Cursor START = new Cursor(Snapshot.NOTHING, null, 0, 0);

  /** A cursor as outbox_shard stores it. */
  static Cursor stored(String lower, String upper, Long afterTxid, Long afterSeq) {
    return new Cursor(
        Snapshot.parse(lower),
        upper == null ? null : Snapshot.parse(upper),
        afterTxid == null ? 0 : afterTxid,
        afterSeq == null ? 0 : afterSeq);
  }

  /** Whether a batch is being read in chunks. */
  boolean inBatch() {
    return upper != null;
  }

  /**
   * After a chunk read at {@code seen} (the reading statement's own snapshot, or {@code upper}
   * while in a batch) that ended at the message {@code (txid, seq)}: a full chunk leaves the batch
   * open after it; a short one ends the batch at {@code seen}.
   */
  Cursor afterChunk(Snapshot seen, boolean full, long txid, long seq) {
    Snapshot bound = inBatch() ? upper : seen;
    return full ? new Cursor(lower, bound, txid, seq) : new Cursor(bound, null, 0, 0);
  }
}
