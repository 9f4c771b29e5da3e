package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim: which ready messages a relay takes, written once for every database. Two passes, each
 * a bounded amount of work however deep the backlog: first the oldest pending rows in seq order
 * (what should be delivered first), then, only when that did not fill the batch, the heads of other
 * aggregates found by a skip scan. The second pass sees the first pass's rows as leased, so nothing
 * is claimed twice. The dialect supplies the transaction, the locking and the skip scan.
 */
final class MessageClaimer {

  private static final Logger log = LoggerFactory.getLogger(JooqOutboxRepository.class);

  private final DSLContext dsl;
  private final OutboxDialect dialect;
  private final MessageRows rows;
  private final MessageSettler settler;

  MessageClaimer(DSLContext dsl, OutboxDialect dialect, MessageRows rows, MessageSettler settler) {
    this.dsl = dsl;
    this.dialect = dialect;
    this.rows = rows;
    this.settler = settler;
  }

  List<OutboxMessage> claim(
      Set<String> topics, int limit, Duration lease, String claimToken, Instant now) {
    if (topics.isEmpty() || limit <= 0) {
      return List.of();
    }
    OutboxDialect.Lease taken = new OutboxDialect.Lease(claimToken, now.plus(lease));
    List<Record> claimed =
        Deadlocks.retry(
            () -> dialect.claimTransaction(dsl, tx -> bothPasses(tx, topics, limit, taken, now)));
    return toMessages(claimed, claimToken, now);
  }

  private List<Record> bothPasses(
      DSLContext tx, Set<String> topics, int limit, OutboxDialect.Lease lease, Instant now) {
    List<Record> claimed = dialect.lease(tx, ClaimQueries.candidates(topics, limit, now), lease);
    if (claimed.size() < limit) {
      List<Long> heads = tx.fetchValues(dialect.headSeqs(ClaimQueries.headScanBound(limit)));
      if (!heads.isEmpty()) {
        claimed.addAll(
            dialect.lease(
                tx, ClaimQueries.readyAmong(heads, topics, limit - claimed.size(), now), lease));
      }
    }
    return claimed;
  }

  /**
   * The claimed rows as messages, in seq order. A row that cannot become a message (its headers,
   * written by hand, are not a JSON object of strings) is dead-lettered at once with the reason and
   * left out, so it cannot fail every later claim.
   */
  private List<OutboxMessage> toMessages(List<Record> claimed, String claimToken, Instant now) {
    List<OutboxMessage> messages = new ArrayList<>(claimed.size());
    for (Record r : claimed) {
      try {
        messages.add(rows.toMessage(r));
      } catch (OutboxException corrupt) {
        String error = "corrupt row: " + corrupt.getMessage();
        long seq = r.get(OUTBOX_MESSAGE.SEQ);
        boolean deadLettered = settler.deadLetter(claimToken, seq, error, now);
        log.error(
            "outbox message {} (seq {}) cannot be delivered and is {}: {}",
            r.get(OUTBOX_MESSAGE.ID),
            seq,
            deadLettered ? "dead-lettered" : "left to its new owner",
            error);
      }
    }
    messages.sort(Comparator.comparingLong(OutboxMessage::seq));
    return messages;
  }
}
