package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.DeadLetter;
import dev.jooqoutbox.DeadLetterQuery;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.PurgeResult;
import dev.jooqoutbox.schema.tables.records.OutboxMessageRecord;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What an operator and the housekeeping read and change on a database beyond the relay's store:
 * dead letters paged and filtered, requeue, the purge of sent outbox and inbox rows, the counts.
 * Settling claimed rows is {@link SettleContract}'s, on the three databases and the model.
 */
abstract class AdminRowsContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Set<String> TOPICS = Set.of("t", "u");

  AdminRowsContract(TestDatabase.Kind kind) {
    super(kind);
  }

  // ---------------------------------------------------------------- dead letters and requeue

  @Test
  void aDeadLetterWhoseAttemptsRanOutIsListedWithTheMaximumAttempts() {
    int maxAttempts = 3;
    long seq = write("a", "t");
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      claimOne("crashed-" + attempt);
      clock.advance(LEASE);
    }
    claimOne("token");
    assertThat(
            repository.deadLetterExhausted(
                "token", seq, maxAttempts, "attempts used up", clock.instant()))
        .isTrue();

    assertThat(repository.deadLetters(DeadLetterQuery.all().limit(10)).letters())
        .singleElement()
        .satisfies(
            dead -> {
              assertThat(dead.seq()).isEqualTo(seq);
              assertThat(dead.attempts()).isEqualTo(maxAttempts);
              assertThat(dead.lastError()).isEqualTo("attempts used up");
            });
  }

  @Test
  void deadLettersArePagedBySeqAndFilteredByTopic() {
    List<Long> deadT = new ArrayList<>();
    List<Long> deadU = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      deadT.add(write("t-" + i, "t"));
      deadU.add(write("u-" + i, "u"));
      write("pending-" + i, "t");
    }
    List<OutboxMessage> claimed = claimAll("token");
    for (OutboxMessage m : claimed) {
      if (!m.aggregate().startsWith("pending")) {
        repository.deadLetter("token", m.seq(), "error of " + m.aggregate(), clock.instant());
      }
    }

    List<Long> all = new ArrayList<>();
    long after = 0;
    while (true) {
      List<DeadLetter> page =
          repository.deadLetters(DeadLetterQuery.all().afterSeq(after).limit(3)).letters();
      if (page.isEmpty()) {
        break;
      }
      assertThat(page.size()).isLessThanOrEqualTo(3);
      page.forEach(d -> all.add(d.seq()));
      after = page.get(page.size() - 1).seq();
    }
    List<Long> expected = new ArrayList<>(deadT);
    expected.addAll(deadU);
    expected.sort(null);
    assertThat(all).containsExactlyElementsOf(expected);

    assertThat(repository.deadLetters(DeadLetterQuery.all().topic("u").limit(100)).letters())
        .extracting(DeadLetter::seq)
        .containsExactlyElementsOf(deadU);
    assertThat(
            repository
                .deadLetters(DeadLetterQuery.all().topic("u").afterSeq(deadU.get(2)).limit(100))
                .letters())
        .extracting(DeadLetter::seq)
        .containsExactlyElementsOf(deadU.subList(3, 5));
    assertThat(repository.deadLetters(DeadLetterQuery.all().topic("nope").limit(100)).letters())
        .isEmpty();

    DeadLetter first =
        repository.deadLetters(DeadLetterQuery.all().topic("t").limit(1)).letters().get(0);
    assertThat(first.seq()).isEqualTo(deadT.get(0));
    assertThat(first.aggregate()).isEqualTo("t-0");
    assertThat(first.topic()).isEqualTo("t");
    assertThat(first.attempts()).isEqualTo(1);
    assertThat(first.lastError()).isEqualTo("error of t-0");
    assertThat(first.createdAt()).isEqualTo(START);
    assertThat(first.deadAt()).isEqualTo(START);
    assertThat(first.payloadJson()).contains("secret");
    assertThat(first.toString()).contains(first.id()).doesNotContain("secret");
  }

  @Test
  void requeueByIdMakesTheDeadLetterPendingFromNow() {
    long seq = write("a", "t");
    String id = row(seq).getId();
    claimOne("token");
    repository.deadLetter("token", seq, "poison", clock.instant());
    clock.advance(Duration.ofHours(1));

    assertThat(repository.requeue(id, clock.instant())).isTrue();

    OutboxMessageRecord row = row(seq);
    assertThat(row.getDeadAt()).isNull();
    assertThat(row.getAttempts()).isZero();
    assertThat(row.getLastError()).isNull();
    assertThat(row.getAvailableAt()).isEqualTo(clock.instant());
    assertThat(row.getClaimToken()).isNull();
    assertThat(row.getLockedUntil()).isNull();
    assertThat(claimAll("token-2")).extracting(OutboxMessage::attempt).containsExactly(1);

    // Only dead letters are requeued.
    assertThat(repository.requeue(id, clock.instant())).isFalse();
    assertThat(repository.requeue("no-such-id", clock.instant())).isFalse();
    assertThat(row(seq).getClaimToken()).isEqualTo("token-2");
  }

  @Test
  void requeueByTopicAndAll() {
    long t1 = write("a", "t");
    long t2 = write("b", "t");
    long u1 = write("c", "u");
    long pending = write("d", "t");
    long sent = write("e", "t");
    claimAll("token");
    for (long seq : List.of(t1, t2, u1)) {
      repository.deadLetter("token", seq, "poison", clock.instant());
    }
    repository.markSent("token", List.of(sent), clock.instant());
    repository.release("token", List.of(pending));
    OutboxMessageRecord pendingRow = row(pending);
    OutboxMessageRecord sentRow = row(sent);

    assertThat(repository.requeueTopic("t", clock.instant())).isEqualTo(2);
    assertThat(row(t1).getDeadAt()).isNull();
    assertThat(row(t2).getDeadAt()).isNull();
    assertThat(row(u1).getDeadAt()).isNotNull();
    assertThat(repository.requeueTopic("t", clock.instant())).isZero();

    assertThat(repository.requeueAll(clock.instant())).isEqualTo(1);
    assertThat(row(u1).getDeadAt()).isNull();
    assertThat(row(u1).getAttempts()).isZero();
    assertThat(repository.requeueAll(clock.instant())).isZero();

    assertThat(row(pending)).isEqualTo(pendingRow);
    assertThat(row(sent)).isEqualTo(sentRow);
    assertThat(claimAll("token-2"))
        .extracting(OutboxMessage::seq)
        .containsExactly(t1, t2, u1, pending);
  }

  // ---------------------------------------------------------------- purge and stats

  /**
   * The product's rule for a caller's id (guarantees.md): an idempotency key within the retention
   * window. While its sent row is kept, a rewrite with other content is refused; once the purge
   * deleted it, the id is forgotten and the same id is a new message.
   */
  @Test
  void aPurgedIdIsForgottenAndMayBeWrittenAgain() {
    NewMessage first =
        new NewMessage(
            "order-7", "a", "t", "{\"n\":1}", Map.of(), clock.instant(), clock.instant());
    NewMessage other =
        new NewMessage(
            "order-7", "a", "t", "{\"n\":2}", Map.of(), clock.instant(), clock.instant());
    assertThat(insert(first)).isTrue();
    List<OutboxMessage> claimed = claimAll("token-1");
    repository.markSent("token-1", List.of(claimed.get(0).seq()), clock.instant());
    assertThat(insert(other)).as("kept: the id is taken").isFalse();

    clock.advance(Duration.ofHours(1));
    repository.purge(clock.instant(), 10);

    assertThat(insert(other)).as("purged: the id is forgotten").isTrue();
    assertThat(db.dsl().fetchValue(OUTBOX_MESSAGE.PAYLOAD, OUTBOX_MESSAGE.ID.eq("order-7")).data())
        .contains("2");
  }

  private boolean insert(NewMessage message) {
    Boolean inserted = db.dsl().transactionResult(tx -> repository.insert(tx.dsl(), message));
    return inserted;
  }

  @Test
  void purgeDeletesOldSentAndInboxRowsInBatchesAndKeepsTheRest() {
    // Seven sent at START, two sent an hour later, a dead letter, pending and leased rows.
    List<Long> oldSent = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      oldSent.add(write("old-" + i, "t"));
    }
    long dead = write("dead", "t");
    claimAll("token-1");
    repository.markSent("token-1", oldSent, clock.instant());
    repository.deadLetter("token-1", dead, "poison", clock.instant());
    Inbox inbox = new Inbox(clock);
    for (int i = 0; i < 5; i++) {
      String id = "m-" + i;
      db.dsl().transaction(tx -> inbox.seen(tx.dsl(), "consumer", id));
    }

    clock.advance(Duration.ofHours(1));
    long recentSent = write("recent", "t");
    long pending = write("pending", "t");
    long leased = write("leased", "t");
    long backingOff = write("backing-off", "t");
    List<OutboxMessage> recent = claimAll("token-2");
    assertThat(recent).hasSize(4);
    repository.markSent("token-2", List.of(recentSent), clock.instant());
    repository.release("token-2", List.of(pending));
    repository.retryLater("token-2", backingOff, "boom", clock.instant().plusSeconds(60));
    db.dsl().transaction(tx -> inbox.seen(tx.dsl(), "consumer", "m-recent"));

    // Both old sets are bigger than the batch: the purge loops until a short batch.
    PurgeResult result = repository.purge(clock.instant(), 3);

    assertThat(result).isEqualTo(new PurgeResult(7, 5));
    assertThat(db.dsl().select(OUTBOX_MESSAGE.SEQ).from(OUTBOX_MESSAGE).fetch(OUTBOX_MESSAGE.SEQ))
        .containsExactlyInAnyOrder(dead, recentSent, pending, leased, backingOff);
    assertThat(
            db.dsl()
                .select(INBOX_MESSAGE.MESSAGE_ID)
                .from(INBOX_MESSAGE)
                .fetch(INBOX_MESSAGE.MESSAGE_ID))
        .containsExactly("m-recent");
    assertThat(repository.purge(clock.instant(), 3)).isEqualTo(new PurgeResult(0, 0));

    // Even far in the future, dead letters and pending rows stay.
    clock.advance(Duration.ofDays(365));
    assertThat(repository.purge(clock.instant(), 1000)).isEqualTo(new PurgeResult(1, 1));
    assertThat(db.dsl().select(OUTBOX_MESSAGE.SEQ).from(OUTBOX_MESSAGE).fetch(OUTBOX_MESSAGE.SEQ))
        .containsExactlyInAnyOrder(dead, pending, leased, backingOff);
  }

  @Test
  void purgeInBatchesOfAgeDeletesRowsSentOutOfSeqOrderAndNothingYounger() {
    // Each batch deletes up to the age of its last row and the next reads on past it
    // (PurgeBatches): rows sent in another order than their seqs, and rows of the age where a batch
    // ends, are all deleted, and nothing younger than the cutoff.
    List<Long> seqs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      seqs.add(write("s-" + i, "t"));
    }
    claimAll("token");
    Instant start = clock.instant();
    int[] secondsLater = {3, 1, 2, 1, 3, 2, 1, 9};
    for (int i = 0; i < seqs.size(); i++) {
      repository.markSent("token", List.of(seqs.get(i)), start.plusSeconds(secondsLater[i]));
    }

    PurgeRun run = repository.startPurge(start.plusSeconds(4), 2);
    int batches = 0;
    while (run.next()) {
      batches++;
    }

    assertThat(run.deleted()).isEqualTo(new PurgeResult(7, 0));
    assertThat(batches)
        .as("three batches of the outbox and the empty one that ends it; the inbox's ends the run")
        .isEqualTo(4);
    assertThat(db.dsl().select(OUTBOX_MESSAGE.SEQ).from(OUTBOX_MESSAGE).fetch(OUTBOX_MESSAGE.SEQ))
        .containsExactly(seqs.get(7));
  }

  @Test
  void purgeOfExactlyOneBatchStops() {
    List<Long> sent = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      sent.add(write("a-" + i, "t"));
    }
    claimAll("token");
    repository.markSent("token", sent, clock.instant());
    clock.advance(Duration.ofSeconds(1));

    assertThat(repository.purge(clock.instant(), 4)).isEqualTo(new PurgeResult(4, 0));
    assertThat(db.dsl().fetchCount(OUTBOX_MESSAGE)).isZero();
    assertThatThrownBy(() -> repository.purge(clock.instant(), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void statsCountEveryState() {
    Instant oldest = clock.instant();
    long backingOff = write("a", "t");
    clock.advance(Duration.ofSeconds(10));
    long leased = write("b", "t");
    long sent = write("c", "u");
    long dead = write("d", "u");
    write("e", "u"); // pending, never claimed
    claimAll("token");
    repository.retryLater("token", backingOff, "boom", clock.instant().plusSeconds(60));
    repository.markSent("token", List.of(sent), clock.instant());
    repository.deadLetter("token", dead, "poison", clock.instant());
    repository.release("token", List.of(seqOfAggregate("e")));
    clock.advance(Duration.ofSeconds(5));

    Instant now = clock.instant();
    assertThat(repository.stats(now))
        .isEqualTo(new OutboxStats(3, 1, 1, 1, Duration.between(oldest, now)));
    assertThat(repository.statsByTopic(now))
        .containsExactly(
            Map.entry("t", new OutboxStats(2, 1, 0, 0, Duration.ofSeconds(15))),
            Map.entry("u", new OutboxStats(1, 0, 1, 1, Duration.ofSeconds(5))));
    assertThat(repository.pendingCount()).isEqualTo(3);
    assertThat(repository.oldestPendingAge(now)).isEqualTo(Duration.ofSeconds(15));

    // An expired lease no longer counts as leased.
    clock.advance(LEASE);
    assertThat(repository.stats(clock.instant()).leased()).isZero();
    assertThat(row(leased).getClaimToken()).isEqualTo("token");
  }

  @Test
  void statsOfAnEmptyOutbox() {
    assertThat(repository.stats(clock.instant()))
        .isEqualTo(new OutboxStats(0, 0, 0, 0, Duration.ZERO));
    assertThat(repository.statsByTopic(clock.instant())).isEmpty();
    assertThat(repository.pendingCount()).isZero();
    assertThat(repository.oldestPendingAge(clock.instant())).isEqualTo(Duration.ZERO);
  }

  // ---------------------------------------------------------------- helpers

  private List<OutboxMessage> claimAll(String token) {
    return repository.claim(TOPICS, 1000, LEASE, token, clock.instant());
  }

  private OutboxMessage claimOne(String token) {
    List<OutboxMessage> claimed = repository.claim(TOPICS, 1, LEASE, token, clock.instant());
    assertThat(claimed).hasSize(1);
    return claimed.get(0);
  }

  /** A row of outbox_message, which these operator queries read on every database. */
  private long write(String aggregate, String topic) {
    return new RowWriter(db.dsl(), clock).write(aggregate, topic, Map.of("secret", aggregate));
  }
}
