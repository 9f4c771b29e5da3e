package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The claim's statements keep their index-backed plans at depth, whatever the statistics say: sent
 * rows awaiting purge, then pending rows over 1000 aggregates, of which a drain marks the oldest
 * sent. Each dialect asserts its own plans ({@link #assertIndexBacked}) with the statistics the
 * load left, with statistics taken before the drain (they count the drained rows as pending), and
 * after a fresh analyze; then a claim at that depth takes runs in seq order. Asserted on plans,
 * never on time. The loads take tens of seconds: tagged {@code large} (exclude with {@code
 * -DexcludedGroups=large}).
 */
@Tag("large")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ClaimPlanContract {

  static final Set<String> TOPICS = Set.of("t");
  static final Instant NOW = DeepOutbox.NOW;

  private final TestDatabase.Kind kind;
  private final int sent;
  private final int pending;
  final int drained;
  private final int aggregates;
  TestDatabase db;
  DSLContext dsl;

  ClaimPlanContract(TestDatabase.Kind kind, int sent, int pending, int drained) {
    this(kind, sent, pending, drained, 1000);
  }

  ClaimPlanContract(TestDatabase.Kind kind, int sent, int pending, int drained, int aggregates) {
    this.kind = kind;
    this.sent = sent;
    this.pending = pending;
    this.drained = drained;
    this.aggregates = aggregates;
  }

  /**
   * Checks the plans of every statement of a claim on the table as it is now, with its window
   * starting at {@code floor}.
   */
  abstract void assertIndexBacked(long floor);

  /** Refreshes the planner's statistics of the outbox table. */
  abstract void analyze();

  /** Runs before the load, on the empty table. */
  void prepareTable() {}

  @BeforeAll
  void fillTheOutbox() {
    db = TestDatabase.migrated(kind);
    dsl = db.dsl();
    prepareTable();
    DeepOutbox.insert(dsl, 1, sent, aggregates, true);
    DeepOutbox.insert(dsl, sent + 1, pending, aggregates, false);
  }

  @AfterAll
  void dropDatabase() {
    db.close();
  }

  @Test
  @Order(1)
  void plansWithTheStatisticsTheLoadLeft() {
    assertIndexBacked(DeepOutbox.floor(dsl));
  }

  @Test
  @Order(2)
  void plansWithStatisticsThatStillCountDrainedRowsAsPending() {
    analyze();
    long floorBeforeTheDrain = DeepOutbox.floor(dsl);
    DeepOutbox.drain(dsl, drained);

    assertIndexBacked(DeepOutbox.floor(dsl));
    // A floor that lags behind the drain, as ClaimFloor's does by a period: every row drained
    // since lies between it and the oldest pending row, and the window must not read them.
    assertIndexBacked(floorBeforeTheDrain);
  }

  @Test
  @Order(4)
  void plansAfterAnalyze() {
    analyze();

    assertIndexBacked(DeepOutbox.floor(dsl));
  }

  @Test
  @Order(6)
  void theClaimTakesRunsInSeqOrderAtDepth() {
    JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
    long oldest = DeepOutbox.floor(dsl);
    // An aggregate with a run at the front: the window holds 5 of its messages.
    dsl.update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.AGGREGATE, "front")
        .where(OUTBOX_MESSAGE.SEQ.in(oldest, oldest + 2, oldest + 4, oldest + 6, oldest + 8))
        .execute();

    List<OutboxMessage> claimed =
        repository.claim(TOPICS, 100, 3, Duration.ofSeconds(30), "t", NOW);

    // Runs of at most 3 of each aggregate (and of "front"), up to the limit.
    assertThat(claimed).hasSize(Math.min(100, 3 * (aggregates + 1)));
    assertThat(claimed.get(0).seq()).isEqualTo(oldest);
    assertThat(claimed.stream().filter(m -> m.aggregate().equals("front")))
        .extracting(OutboxMessage::seq)
        .containsExactly(oldest, oldest + 2, oldest + 4);
    DeepOutbox.assertRuns(dsl, claimed);
    repository.release("t", claimed.stream().map(OutboxMessage::seq).toList());
  }

  OutboxDialect dialect() {
    return OutboxDialect.of(db.dialect());
  }
}
