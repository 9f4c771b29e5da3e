package dev.jooqoutbox.relay;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The retry window docs/operations.md states for the relay's defaults is the one the relay keeps:
 * the test reads the defaults and the window out of the doc, checks that the window follows from
 * those defaults, and runs a relay built with its defaults (no {@code maxAttempts}, no {@code
 * backoff}) against always-failing handlers, on a clock it moves by hand, until the messages are
 * dead: every attempt and every wait must be what the doc says.
 */
class OperationsDocRetryWindowTest extends RelayContractSupport {

  private static final Path DOC = Path.of("docs", "operations.md");
  private static final Pattern DEFAULTS =
      Pattern.compile(
          "\\*\\*maxAttempts\\*\\* \\((\\d+)\\) and \\*\\*backoff\\*\\* \\((\\d+) s → (\\d+) min\\)");
  private static final Pattern WINDOW =
      Pattern.compile(
          "dead-lettered between (\\d+) min ([\\d.]+) s\\s+and (\\d+) min ([\\d.]+) s after its"
              + " first attempt");

  OperationsDocRetryWindowTest() {
    super(TestDatabase.Kind.SQLITE);
  }

  @Test
  void defaultRetryWindowIsTheOneTheDocStates() throws IOException {
    String doc = Files.readString(DOC);
    Matcher defaults = DEFAULTS.matcher(doc);
    assertThat(defaults.find()).as("the defaults in %s", DOC).isTrue();
    int maxAttempts = Integer.parseInt(defaults.group(1));
    Duration initial = Duration.ofSeconds(Long.parseLong(defaults.group(2)));
    Duration max = Duration.ofMinutes(Long.parseLong(defaults.group(3)));
    Matcher window = WINDOW.matcher(doc);
    assertThat(window.find()).as("the retry window in %s", DOC).isTrue();
    Duration docShortest = minutesAndSeconds(window.group(1), window.group(2));
    Duration docLongest = minutesAndSeconds(window.group(3), window.group(4));

    // The window the doc's defaults give: the waits after attempts 1 .. maxAttempts - 1, each
    // between half and all of min(max, initial * 2^(n-1)).
    Duration shortest = Duration.ZERO;
    Duration longest = Duration.ZERO;
    for (int attempt = 1; attempt < maxAttempts; attempt++) {
      Duration full = fullWait(initial, max, attempt);
      shortest = shortest.plus(full.dividedBy(2));
      longest = longest.plus(full);
    }
    assertThat(docShortest).as("shortest window in the doc").isEqualTo(shortest);
    assertThat(docLongest).as("longest window in the doc").isEqualTo(longest);

    // The relay's own defaults: 20 messages fail every attempt until they are dead.
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ids.add(write("account-" + i, "orders", Map.of("n", i)));
    }
    Map<String, Integer> calls = new HashMap<>();
    Map<String, Duration> waited = new HashMap<>();
    OutboxRelay relay =
        relayOf(
            "orders",
            m -> {
              synchronized (calls) {
                calls.merge(m.id(), 1, Integer::sum);
              }
              throw new IllegalStateException("always fails");
            });
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      Instant failedAt = clock.instant();
      assertThat(relay.drainOnce(1000)).as("messages tried at attempt %d", attempt).isEqualTo(20);
      Instant next = failedAt;
      for (String id : ids) {
        MessageRow row = row(id);
        assertThat(row.getAttempts()).isEqualTo(attempt);
        if (attempt < maxAttempts) {
          assertThat(row.getDeadAt()).as("dead after attempt %d", attempt).isNull();
          Duration wait = Duration.between(failedAt, row.getAvailableAt());
          Duration full = fullWait(initial, max, attempt);
          assertThat(wait).as("wait after attempt %d", attempt).isBetween(full.dividedBy(2), full);
          waited.merge(id, wait, Duration::plus);
          next = row.getAvailableAt().isAfter(next) ? row.getAvailableAt() : next;
        } else {
          assertThat(row.getDeadAt()).as("dead after the last attempt").isEqualTo(failedAt);
        }
      }
      clock.set(next);
    }
    assertThat(calls.values()).as("handler calls per message").containsOnly(maxAttempts);
    for (Duration total : waited.values()) {
      assertThat(total).as("all waits of one message").isBetween(shortest, longest);
    }
    assertThat(dsl.fetchCount(OUTBOX_MESSAGE, OUTBOX_MESSAGE.DEAD_AT.isNull())).isZero();
  }

  private static Duration fullWait(Duration initial, Duration max, int attempt) {
    Duration full = initial.multipliedBy(1L << (attempt - 1));
    return full.compareTo(max) > 0 ? max : full;
  }

  private static Duration minutesAndSeconds(String minutes, String seconds) {
    return Duration.ofMinutes(Long.parseLong(minutes))
        .plusMillis(Math.round(Double.parseDouble(seconds) * 1000));
  }
}
