package dev.jooqoutbox;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboxAdmin}: the operator API the CLI is built on, on every dialect. Most tests drive
 * their messages through the row-state repository's own claim and settle ({@code relaySide}), so
 * they write them as rows of outbox_message on every database ({@link #write}); on PostgreSQL those
 * are what the event log's copies are. The tests of a message as {@code Outbox.write} stores it use
 * {@link #writeWithOutbox}.
 */
abstract class OutboxAdminContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private OutboxAdmin admin;
  private JooqOutboxRepository relaySide;

  OutboxAdminContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void buildAdmin() {
    admin = OutboxAdmin.create(db.dsl(), clock);
    relaySide = new JooqOutboxRepository(db.dsl());
  }

  @Test
  void messageStateShowsTheHeadersItWasWrittenWithButNotInItsToString() {
    String id =
        db.dsl()
            .transactionResult(
                tx ->
                    outbox
                        .message("acct-9", "t", java.util.Map.of("n", 1))
                        .header("traceparent", "00-abc-01")
                        .header("tenant", "north")
                        .write(tx.dsl()));
    MessageState state = admin.message(id).orElseThrow();
    assertThat(state.headers())
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of("traceparent", "00-abc-01", "tenant", "north"));
    assertThat(state.toString()).doesNotContain("north");
  }

  @Test
  void messageStateFollowsAMessageThroughItsLife() {
    String id = write("acct-1", "t");
    MessageState pending = admin.message(id).orElseThrow();
    assertThat(pending.status()).isEqualTo(MessageStatus.PENDING);
    assertThat(pending.attempts()).isZero();
    assertThat(pending.availableAt()).isEqualTo(START);
    assertThat(pending.aggregate()).isEqualTo("acct-1");
    assertThat(pending.topic()).isEqualTo("t");
    assertThat(pending.payloadJson()).contains("acct-1");
    assertThat(pending.headers()).as("written without headers").isEmpty();

    long seq = claimOne("token").seq();
    MessageState leased = admin.message(id).orElseThrow();
    assertThat(leased.status()).isEqualTo(MessageStatus.LEASED);
    assertThat(leased.leasedUntil()).isEqualTo(START.plus(LEASE));
    assertThat(leased.attempts()).isOne();

    relaySide.retryLater("token", seq, "boom", START.plusSeconds(60));
    MessageState backingOff = admin.message(id).orElseThrow();
    assertThat(backingOff.status()).isEqualTo(MessageStatus.PENDING);
    assertThat(backingOff.lastError()).isEqualTo("boom");
    assertThat(backingOff.availableAt()).isEqualTo(START.plusSeconds(60));

    clock.advance(Duration.ofSeconds(60));
    claimOne("token-2");
    relaySide.markSent("token-2", List.of(seq), clock.instant());
    MessageState sent = admin.message(id).orElseThrow();
    assertThat(sent.status()).isEqualTo(MessageStatus.SENT);
    assertThat(sent.sentAt()).isEqualTo(clock.instant());
    assertThat(sent.attempts()).isEqualTo(2);

    assertThat(admin.message("no-such-id")).isEmpty();
    assertThat(sent.toString()).doesNotContain("acct-1\"");
  }

  @Test
  void anExpiredLeaseReadsAsPending() {
    String id = write("a", "t");
    claimOne("token");
    clock.advance(LEASE);
    assertThat(admin.message(id).orElseThrow().status()).isEqualTo(MessageStatus.PENDING);
  }

  @Test
  void deadLettersFilterByTopicAggregateAndTimeAndPageBySeq() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ids.add(write(i % 2 == 0 ? "even" : "odd", i < 3 ? "t" : "u"));
    }
    write("alive", "t");
    // A claim takes one message per aggregate; dead letters do not hold their aggregate back.
    List<OutboxMessage> claimed;
    while (!(claimed = relaySide.claim(Set.of("t", "u"), 100, LEASE, "token", clock.instant()))
        .isEmpty()) {
      for (OutboxMessage m : claimed) {
        if (!m.aggregate().equals("alive")) {
          relaySide.deadLetter("token", m.seq(), "error " + m.id(), clock.instant());
          clock.advance(Duration.ofMinutes(1));
        }
      }
    }
    assertThat(admin.deadCount()).isEqualTo(6);

    List<String> paged = new ArrayList<>();
    DeadLetterQuery query = DeadLetterQuery.all().limit(4);
    DeadLetterPage page;
    do {
      page = admin.deadLetters(query);
      page.letters().forEach(d -> paged.add(d.id()));
      query = page.next().orElse(null);
    } while (query != null);
    assertThat(paged).containsExactlyElementsOf(ids);

    assertThat(ids(DeadLetterQuery.all().topic("u"))).containsExactlyElementsOf(ids.subList(3, 6));
    assertThat(ids(DeadLetterQuery.all().aggregate("odd")))
        .containsExactly(ids.get(1), ids.get(3), ids.get(5));
    assertThat(ids(DeadLetterQuery.all().topic("t").aggregate("even")))
        .containsExactly(ids.get(0), ids.get(2));
    // Died at START + 0, 1, ... 5 minutes: [START+2m, START+4m) holds the third and the fourth.
    assertThat(
            ids(DeadLetterQuery.all().deadBetween(START.plusSeconds(120), START.plusSeconds(240))))
        .containsExactly(ids.get(2), ids.get(3));
    assertThat(ids(DeadLetterQuery.all().deadBetween(START.plusSeconds(300), null)))
        .containsExactly(ids.get(5));
    assertThat(ids(DeadLetterQuery.all().topic("nope"))).isEmpty();
    DeadLetter first = admin.deadLetters(DeadLetterQuery.all().limit(1)).letters().get(0);
    assertThat(first.lastError()).isEqualTo("error " + ids.get(0));
    assertThat(first.attempts()).isOne();
  }

  @Test
  void deadLetterQueriesRefuseBadBounds() {
    assertThatThrownBy(() -> DeadLetterQuery.all().limit(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
    assertThatThrownBy(() -> DeadLetterQuery.all().limit(DeadLetterQuery.MAX_LIMIT + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DeadLetterQuery.all().afterSeq(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DeadLetterQuery.all().deadBetween(START, START))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deadBefore");
  }

  @Test
  void requeueByIdByTopicAndAll() {
    String t1 = write("a", "t");
    String t2 = write("b", "t");
    String u1 = write("c", "u");
    String pending = write("d", "u");
    for (OutboxMessage m :
        relaySide.claim(Set.of("t", "u"), 100, LEASE, "token", clock.instant())) {
      if (!m.id().equals(pending)) {
        relaySide.deadLetter("token", m.seq(), "poison", clock.instant());
      }
    }
    relaySide.release("token", List.of(seqOf(pending)));
    clock.advance(Duration.ofMinutes(5));

    assertThat(admin.requeue(t1)).isTrue();
    assertThat(admin.requeue(t1)).as("no longer a dead letter").isFalse();
    assertThat(admin.requeue(pending)).as("pending is not dead").isFalse();
    assertThat(admin.requeue("unknown")).isFalse();
    MessageState requeued = admin.message(t1).orElseThrow();
    assertThat(requeued.status()).isEqualTo(MessageStatus.PENDING);
    assertThat(requeued.attempts()).isZero();
    assertThat(requeued.lastError()).isNull();
    assertThat(requeued.availableAt()).isEqualTo(clock.instant());

    assertThat(admin.requeueTopic("u")).isOne();
    assertThat(admin.message(u1).orElseThrow().status()).isEqualTo(MessageStatus.PENDING);
    assertThat(admin.requeueAll()).isOne();
    assertThat(admin.message(t2).orElseThrow().status()).isEqualTo(MessageStatus.PENDING);
    assertThat(admin.deadCount()).isZero();
  }

  /** The class Javadoc's rule: an unknown id is "nothing done", never an exception. */
  @Test
  void anIdNoMessageHasIsNothingDoneForEveryIdOperation() {
    String kept = writeWithOutbox("a", "t");
    for (String unknown : List.of("no-such-id", kept + " ", "")) {
      assertThat(admin.requeue(unknown)).as(unknown).isFalse();
      for (Resolution how : Resolution.values()) {
        assertThat(admin.resolve(unknown, how)).as("%s %s", unknown, how).isFalse();
      }
      assertThat(admin.addRemoteRef(unknown, "ch_1")).isEqualTo(RemoteRefResult.NO_MESSAGE);
      assertThat(admin.message(unknown)).as(unknown).isEmpty();
    }
    MessageState untouched = admin.message(kept).orElseThrow();
    assertThat(untouched.status()).isEqualTo(MessageStatus.PENDING);
    assertThat(db.dsl().fetchValue(OUTBOX_MESSAGE.REMOTE_REF, OUTBOX_MESSAGE.ID.eq(kept))).isNull();
    // A real conflict is still one: the message exists and never was outcome-unknown.
    assertThatThrownBy(() -> admin.resolve(kept, Resolution.SENT))
        .isInstanceOf(ResolutionConflictException.class);
  }

  @Test
  void addRemoteRefSaysWhetherItAddedOrKept() {
    String id = write("a", "t");
    assertThat(admin.addRemoteRef(id, "ch_1")).isEqualTo(RemoteRefResult.ADDED);
    assertThat(admin.addRemoteRef(id, "ch_2")).isEqualTo(RemoteRefResult.KEPT);
    assertThat(admin.addRemoteRef(id, "ch_1")).isEqualTo(RemoteRefResult.KEPT);
    assertThat(db.dsl().fetchValue(OUTBOX_MESSAGE.REMOTE_REF, OUTBOX_MESSAGE.ID.eq(id)))
        .isEqualTo("ch_1");
  }

  @Test
  void statsAndCheapGaugesAgree() {
    write("a", "t");
    clock.advance(Duration.ofSeconds(10));
    String sent = write("b", "u");
    String dead = write("c", "u");
    for (OutboxMessage m :
        relaySide.claim(Set.of("t", "u"), 100, LEASE, "token", clock.instant())) {
      if (m.id().equals(sent)) {
        relaySide.markSent("token", List.of(m.seq()), clock.instant());
      } else if (m.id().equals(dead)) {
        relaySide.deadLetter("token", m.seq(), "poison", clock.instant());
      }
    }
    clock.advance(Duration.ofSeconds(5));

    assertThat(admin.stats()).isEqualTo(new OutboxStats(1, 1, 1, 1, Duration.ofSeconds(15)));
    assertThat(admin.statsByTopic())
        .containsExactly(
            Map.entry("t", new OutboxStats(1, 1, 0, 0, Duration.ofSeconds(15))),
            Map.entry("u", new OutboxStats(0, 0, 1, 1, Duration.ZERO)));
    assertThat(admin.pendingCount()).isOne();
    assertThat(admin.oldestPendingAge()).isEqualTo(Duration.ofSeconds(15));
    assertThat(admin.deadCount()).isOne();
  }

  /**
   * card-1: unknown, then two pending. card-2: unknown, then one. card-3: unknown alone. r-1:
   * failed and backing off, then two. delayed: rescheduled without a failure, then one. dead-1: a
   * dead letter, then one. leased-1: leased, then one. Only the first two wait behind unknowns,
   * only r-1's behind a retry.
   */
  @Test
  void blockedMessagesAreCountedBehindWhatBlocksThem() {
    assertThat(admin.blockedBehindUnknown()).isEqualTo(BlockedMessages.NONE);
    assertThat(admin.blockedBehindRetry()).isEqualTo(BlockedMessages.NONE);
    Map<String, String> heads = new java.util.LinkedHashMap<>();
    for (String aggregate :
        List.of("card-1", "card-2", "card-3", "r-1", "delayed", "dead-1", "leased-1")) {
      heads.put(aggregate, write(aggregate, "t"));
    }
    write("card-1", "u"); // ordered per aggregate, whatever the topic
    write("card-1", "t");
    write("card-2", "t");
    write("r-1", "t");
    write("r-1", "t");
    write("delayed", "t");
    write("dead-1", "t");
    write("leased-1", "t");
    Instant now = clock.instant();
    Instant later = now.plusSeconds(600);
    for (OutboxMessage m : relaySide.claim(Set.of("t", "u"), 100, LEASE, "token", now)) {
      assertThat(m.id()).isEqualTo(heads.get(m.aggregate()));
      long seq = m.seq();
      switch (m.aggregate()) {
        case "r-1" -> assertThat(relaySide.retryLater("token", seq, "boom", later)).isTrue();
        case "delayed" -> assertThat(relaySide.outcomes().reschedule("token", seq, later)).isTrue();
        case "dead-1" -> assertThat(relaySide.deadLetter("token", seq, "poison", now)).isTrue();
        case "leased-1" -> {}
        default ->
            assertThat(relaySide.outcomes().markUnknown("token", seq, null, "?", now, later))
                .isTrue();
      }
    }

    assertThat(admin.blockedBehindUnknown())
        .isEqualTo(new BlockedMessages(3, 2, "card-1", heads.get("card-1")));
    assertThat(admin.blockedBehindRetry())
        .isEqualTo(new BlockedMessages(2, 1, "r-1", heads.get("r-1")));

    assertThat(admin.resolve(heads.get("card-1"), Resolution.DEAD)).isTrue();
    assertThat(admin.blockedBehindUnknown())
        .isEqualTo(new BlockedMessages(1, 1, "card-2", heads.get("card-2")));
    clock.advance(Duration.ofSeconds(600));
    assertThat(admin.blockedBehindRetry())
        .as("due again: no longer waiting")
        .isEqualTo(BlockedMessages.NONE);
  }

  @Test
  void purgeKeepsPendingAndDeadAndRefusesBadArguments() {
    String sent = write("a", "t");
    String dead = write("b", "t");
    String pending = write("c", "t");
    for (OutboxMessage m : relaySide.claim(Set.of("t"), 100, LEASE, "token", clock.instant())) {
      if (m.id().equals(sent)) {
        relaySide.markSent("token", List.of(m.seq()), clock.instant());
      } else if (m.id().equals(dead)) {
        relaySide.deadLetter("token", m.seq(), "poison", clock.instant());
      } else {
        relaySide.release("token", List.of(m.seq()));
      }
    }
    clock.advance(Duration.ofDays(8));

    assertThat(admin.purgeCount(Duration.ofDays(9))).isEqualTo(new PurgeResult(0, 0));
    assertThat(admin.purgeCount(Duration.ofDays(7)))
        .as("a dry run")
        .isEqualTo(new PurgeResult(1, 0));
    assertThat(db.dsl().fetchValues(OUTBOX_MESSAGE.ID))
        .as("the dry run deleted nothing")
        .containsExactlyInAnyOrder(sent, dead, pending);
    assertThat(admin.purge(Duration.ofDays(9))).isEqualTo(new PurgeResult(0, 0));
    assertThat(admin.purge(Duration.ofDays(7), 1)).isEqualTo(new PurgeResult(1, 0));
    assertThat(db.dsl().fetchValues(OUTBOX_MESSAGE.ID)).containsExactlyInAnyOrder(dead, pending);
    assertThatThrownBy(() -> admin.purge(Duration.ofDays(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("olderThan");
    assertThatThrownBy(() -> admin.purgeCount(Duration.ofDays(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("olderThan");
    assertThatThrownBy(() -> admin.purge(Duration.ofDays(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize");
  }

  private List<String> ids(DeadLetterQuery query) {
    return admin.deadLetters(query).letters().stream().map(DeadLetter::id).toList();
  }

  /** A message as a row of outbox_message (the repository claims only those); returns its id. */
  private String write(String aggregate, String topic) {
    long seq =
        new RowWriter(db.dsl(), clock).write(aggregate, topic, Map.of("aggregate", aggregate));
    return db.dsl().fetchValue(OUTBOX_MESSAGE.ID, OUTBOX_MESSAGE.SEQ.eq(seq));
  }

  /** A message written with {@code Outbox}, wherever the database keeps it; returns its id. */
  private String writeWithOutbox(String aggregate, String topic) {
    return db.dsl()
        .transactionResult(
            tx -> outbox.write(tx.dsl(), aggregate, topic, Map.of("aggregate", aggregate)));
  }

  private OutboxMessage claimOne(String token) {
    List<OutboxMessage> claimed =
        relaySide.claim(Set.of("t", "u"), 1, LEASE, token, clock.instant());
    assertThat(claimed).hasSize(1);
    return claimed.get(0);
  }

  @Test
  void aPauseIsStoredOnceAndKeptUntilResumedAndABadTopicIsRefusedAsAValue() {
    assertThat(admin.pausedTopics()).isEmpty();
    assertThat(admin.pause("orders")).as("paused").isTrue();
    clock.advance(Duration.ofMinutes(1));
    assertThat(admin.pause("orders")).as("paused already").isFalse();
    assertThat(admin.pause("audit.v2")).as("a topic with no message yet").isTrue();
    assertThat(admin.pausedTopics())
        .containsExactly(entry("audit.v2", START.plusSeconds(60)), entry("orders", START));
    // Another admin of the same database (another operator, another process) sees it.
    assertThat(OutboxAdmin.create(db.dsl(), clock).pausedTopics()).containsKey("orders");

    assertThat(admin.resume("orders")).as("resumed").isTrue();
    assertThat(admin.resume("orders")).as("not paused any more").isFalse();
    assertThat(admin.resume("never-paused")).isFalse();
    assertThat(admin.pausedTopics()).containsOnlyKeys("audit.v2");

    for (String bad : List.of("", "orders' OR '1'='1", "a b", "x".repeat(256))) {
      assertThatThrownBy(() -> admin.pause(bad))
          .isInstanceOf(InvalidMessageException.class)
          .hasMessageContaining("topic");
      assertThatThrownBy(() -> admin.resume(bad)).isInstanceOf(InvalidMessageException.class);
    }
    assertThatThrownBy(() -> admin.pause(null)).isInstanceOf(InvalidMessageException.class);
    assertThat(admin.pausedTopics()).containsOnlyKeys("audit.v2");
  }
}
