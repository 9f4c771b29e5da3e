package dev.jooqoutbox.cli;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.RowWriter;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code outbox unknown}, {@code outbox resolve} and the unknown count of {@code outbox status}.
 * The messages are rows of outbox_message on every database ({@link #writeRow}): the tests make
 * outcomes unknown through the row-state repository's own claim, which sees rows only, and on
 * PostgreSQL a message of unknown outcome, and what waits behind it, is such a row (a copy from the
 * event log).
 */
abstract class CliOutcomesContract extends DatabaseFixture {

  // Hides DatabaseFixture.START: the figures these tests print are written for noon.
  private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

  CliOutcomesContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void setUp() {
    clock.set(START);
  }

  private CliResult run(String... args) {
    return CliResult.run(clock, args);
  }

  /** Writes a message of {@code aggregate} and records its outcome as unknown, as a relay does. */
  private String unknown(String aggregate, String remoteRef) {
    String id = writeRow(aggregate, "payments", Map.of("n", 1));
    List<OutboxMessage> claimed =
        repository.claim(Set.of("payments"), 10, Duration.ofMinutes(1), "t-" + id, clock.instant());
    OutboxMessage m = claimed.stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
    assertThat(
            repository
                .outcomes()
                .markUnknown(
                    "t-" + id,
                    m.seq(),
                    remoteRef,
                    "OutcomeUnknownException: timed out",
                    clock.instant(),
                    clock.instant().plusSeconds(10)))
        .isTrue();
    return id;
  }

  /** A message as a row of outbox_message; returns its id. */
  private String writeRow(String aggregate, String topic, Object payload) {
    long seq = new RowWriter(db.dsl(), clock).write(aggregate, topic, payload);
    return db.dsl().fetchValue(OUTBOX_MESSAGE.ID, OUTBOX_MESSAGE.SEQ.eq(seq));
  }

  @Test
  void unknownListsTheHeldMessagesAndStatusCountsThem() throws Exception {
    String first = unknown("card-1", "ch_1");
    clock.advance(Duration.ofMinutes(1));
    String second = unknown("card-2", null);
    clock.advance(Duration.ofMinutes(2));

    CliResult r = run("unknown", "--db", db.url());
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("id          " + first + "\n")
        .contains("remote ref  ch_1\n")
        .contains("since       2026-03-01T12:00:00Z (3m ago)\n")
        .contains("id          " + second + "\n")
        .contains("remote ref  -\n")
        .contains("last error  OutcomeUnknownException: timed out\n")
        .endsWith("2 messages with an unknown outcome\n");
    assertThat(r.out().indexOf(first)).isLessThan(r.out().indexOf(second));

    CliResult limited = run("unknown", "--db", db.url(), "--limit", "1");
    assertThat(limited.out())
        .endsWith(
            "showing the first 1 message with an unknown outcome; there are more (raise --limit)\n");

    var json = new ObjectMapper().readTree(run("status", "--db", db.url(), "--json").out());
    assertThat(json.get("total").get("unknown").asLong()).isEqualTo(2);
    assertThat(json.get("total").get("pending").asLong()).isEqualTo(2);
  }

  @Test
  void statusShowsWhatWaitsBehindAnUnknownOutcome() throws Exception {
    String first = unknown("card-1", null);
    unknown("card-2", null);
    for (int i = 0; i < 3; i++) {
      writeRow("card-1", "payments", Map.of("n", 2));
    }
    writeRow("card-2", "refunds", Map.of("n", 3));

    CliResult r = run("status", "--db", db.url());
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .endsWith(
            "(all topics)        6       0        2     0                    0  0s\n"
                + "\n"
                + "blocked: 4 messages of 2 aggregates wait behind a message whose outcome is"
                + " unknown (the oldest: aggregate card-1, behind message "
                + first
                + "); see `outbox unknown`\n");

    var blocked =
        new ObjectMapper().readTree(run("status", "--db", db.url(), "--json").out()).get("blocked");
    assertThat(blocked.get("behindUnknown").get("messages").asLong()).isEqualTo(4);
    assertThat(blocked.get("behindUnknown").get("aggregates").asLong()).isEqualTo(2);
    assertThat(blocked.get("behindUnknown").get("oldestAggregate").asText()).isEqualTo("card-1");
    assertThat(blocked.get("behindUnknown").get("oldestBlockerId").asText()).isEqualTo(first);
    assertThat(blocked.get("behindRetry").get("messages").asLong()).isZero();
    assertThat(blocked.get("behindRetry").get("oldestAggregate").isNull()).isTrue();

    assertThat(run("resolve", "--db", db.url(), first, "--retry").exitCode()).isZero();
    assertThat(run("status", "--db", db.url()).out())
        .contains("blocked: 1 message of 1 aggregate waits behind");
  }

  @Test
  void resolveSettlesOnceAcceptsTheSameAgainAndRefusesAConflict() {
    String id = unknown("card-1", "ch_1");

    CliResult sent = run("resolve", "--db", db.url(), id, "--sent");
    assertThat(sent.exitCode()).as(sent.toString()).isZero();
    assertThat(sent.out()).isEqualTo("resolved " + id + " as sent\n");

    CliResult again = run("resolve", "--db", db.url(), id, "--sent");
    assertThat(again.exitCode()).as(again.toString()).isZero();
    assertThat(again.out()).isEqualTo(id + " was already resolved as sent\n");

    CliResult conflict = run("resolve", "--db", db.url(), id, "--dead");
    assertThat(conflict.exitCode()).isEqualTo(1);
    assertThat(conflict.out()).isEmpty();
    assertThat(conflict.err())
        .isEqualTo(
            "outbox resolve: cannot resolve outbox message \""
                + id
                + "\" as dead: it is not outcome-unknown (it is sent, resolved as sent)\n");

    CliResult missing = run("resolve", "--db", db.url(), "nope", "--retry");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("outbox resolve: no outbox message has id \"nope\"\n");

    assertThat(run("unknown", "--db", db.url()).out())
        .isEqualTo("no messages with an unknown outcome\n");
  }

  @Test
  void resolveRetryAndDeadUnblockTheirAggregates() {
    String retried = unknown("card-1", null);
    String dead = unknown("card-2", null);

    assertThat(run("resolve", "--db", db.url(), retried, "--retry").out())
        .isEqualTo("resolved " + retried + " as retry\n");
    assertThat(run("resolve", "--db", db.url(), dead, "--dead").out())
        .isEqualTo("resolved " + dead + " as dead\n");

    List<OutboxMessage> claimed =
        repository.claim(Set.of("payments"), 10, Duration.ofMinutes(1), "next", clock.instant());
    assertThat(claimed).extracting(OutboxMessage::id).containsExactly(retried);
    assertThat(run("dead-letters", "--db", db.url()).out()).contains("id          " + dead);
  }

  @Test
  void resolveNeedsExactlyOneWay() {
    CliResult none = run("resolve", "--db", db.url(), "some-id");
    assertThat(none.exitCode()).isNotZero();
    CliResult two = run("resolve", "--db", db.url(), "some-id", "--sent", "--dead");
    assertThat(two.exitCode()).isNotZero();
    assertThat(two.err()).contains("mutually exclusive");
  }
}
