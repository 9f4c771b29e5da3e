package dev.jooqoutbox.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.MessageRow;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Handlers that fail in every way a handler can: an exception, an {@link Error}, a hang past the
 * lease, and a poison message that fails every attempt. The relay keeps running, other aggregates
 * keep flowing, each failure is retried, and the poison message ends in the dead letters with its
 * error.
 */
abstract class HandlerFaultContract extends DatabaseFixture {

  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final int MAX_ATTEMPTS = 3;

  HandlerFaultContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeAll
  void setUpOnce() {
    Faults.quietLogs();
  }

  /** One call of a handler, in the order the calls began. */
  private record Call(String topic, String aggregate, String id, int attempt) {}

  @Test
  void failingHandlersNeitherStopTheRelayNorHoldUpOtherAggregates() throws Exception {
    DSLContext dsl = db.dsl();
    Outbox outbox = Outbox.create(dsl);
    List<Call> calls = new CopyOnWriteArrayList<>();
    CountDownLatch hangEnded = new CountDownLatch(1);

    // Each faulty message heads its own aggregate and has a follower that must wait for it.
    Map<String, String> faulty =
        Map.of(
            "fault.throws", "throws-agg",
            "fault.error", "error-agg",
            "fault.hang", "hang-agg",
            "fault.poison", "poison-agg");
    Map<String, String> heads = new HashMap<>();
    Map<String, String> followers = new HashMap<>();
    List<String> healthy = new ArrayList<>();
    dsl.transaction(
        tx -> {
          for (String topic :
              List.of("fault.throws", "fault.error", "fault.hang", "fault.poison")) {
            heads.put(topic, outbox.write(tx.dsl(), faulty.get(topic), topic, Map.of("k", 1)));
          }
          for (String topic : heads.keySet()) {
            followers.put(
                topic, outbox.write(tx.dsl(), faulty.get(topic), "fault.ok", Map.of("k", 2)));
          }
          for (int n = 0; n < 50; n++) {
            healthy.add(outbox.write(tx.dsl(), "ok-" + (n % 10), "fault.ok", Map.of("n", n)));
          }
        });

    ListAppender<ILoggingEvent> log = Faults.capture(OutboxRelay.class);
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler("fault.ok", m -> calls.add(call(m)))
            .handler(
                "fault.throws",
                m -> {
                  calls.add(call(m));
                  if (m.attempt() == 1) {
                    throw new IllegalStateException("simulated failure of " + m.id());
                  }
                })
            .handler(
                "fault.error",
                m -> {
                  calls.add(call(m));
                  if (m.attempt() == 1) {
                    throw new OutOfMemoryError("simulated");
                  }
                })
            .handler(
                "fault.hang",
                m -> {
                  calls.add(call(m));
                  if (m.attempt() == 1) {
                    // Deaf to the relay's interrupt: a handler stuck in a blocking call.
                    sleepUninterruptibly(LEASE.plusMillis(1500));
                    hangEnded.countDown();
                  }
                })
            .handler(
                "fault.poison",
                m -> {
                  calls.add(call(m));
                  throw new IllegalArgumentException("poison pill, attempt " + m.attempt());
                })
            .lease(LEASE)
            // The hung call counts as failed once it passes the maximum handling time (the
            // heartbeat would keep its lease otherwise).
            .maxHandlingTime(LEASE)
            .batchSize(10)
            .handlerConcurrency(2)
            .maxAttempts(MAX_ATTEMPTS)
            .pollInterval(Duration.ofMillis(50))
            .backoff(Duration.ofMillis(300), Duration.ofMillis(300))
            .listen(false)
            .build()) {
      relay.start();

      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> pending(dsl) == 0);

      // The poison message: dead after its last attempt, with the error of that attempt.
      MessageRow poison = row(dsl, heads.get("fault.poison"));
      assertThat(poison.getDeadAt()).as("poison dead_at").isNotNull();
      assertThat(poison.isSent()).isFalse();
      assertThat(poison.getAttempts()).isEqualTo(MAX_ATTEMPTS);
      assertThat(poison.getLastError())
          .isEqualTo("java.lang.IllegalArgumentException: poison pill, attempt " + MAX_ATTEMPTS);
      assertThat(attemptsOf(calls, heads.get("fault.poison"))).containsExactly(1, 2, 3);
      assertThat(OutboxAdmin.create(dsl).deadCount()).as("dead letters").isEqualTo(1);

      // An exception, an Error and a hang each cost one attempt; the second one succeeds.
      for (String topic : List.of("fault.throws", "fault.error", "fault.hang")) {
        MessageRow head = row(dsl, heads.get(topic));
        assertThat(head.isSent()).as("%s sent", topic).isTrue();
        assertThat(attemptsOf(calls, heads.get(topic)))
            .as("%s attempts", topic)
            .containsExactly(1, 2);
      }

      // Each follower ran once, after the last call of the message ahead of it (even a dead one).
      for (var e : followers.entrySet()) {
        String head = heads.get(e.getKey());
        assertThat(attemptsOf(calls, e.getValue()))
            .as("follower of %s", e.getKey())
            .containsExactly(1);
        assertThat(indexOf(calls, e.getValue(), 1))
            .as("follower of %s runs after it", e.getKey())
            .isGreaterThan(lastIndexOf(calls, head));
        assertThat(row(dsl, e.getValue()).isSent()).isTrue();
      }

      // The healthy aggregates flowed while the poison message was being retried.
      for (String id : healthy) {
        assertThat(attemptsOf(calls, id)).as("healthy message %s", id).containsExactly(1);
      }
      int firstPoison = indexOf(calls, heads.get("fault.poison"), 1);
      int lastPoison = indexOf(calls, heads.get("fault.poison"), MAX_ATTEMPTS);
      long healthyMeanwhile =
          healthy.stream()
              .mapToInt(id -> indexOf(calls, id, 1))
              .filter(i -> i > firstPoison && i < lastPoison)
              .count();
      assertThat(healthyMeanwhile).as("healthy deliveries between poison attempts").isPositive();

      // The failures were logged with their cause, the Error included.
      assertThat(Faults.messages(log))
          .anyMatch(m -> m.contains("java.lang.OutOfMemoryError: simulated"))
          .anyMatch(m -> m.contains("IllegalStateException: simulated failure"))
          .anyMatch(m -> m.contains("ran past the maximum handling time"))
          .anyMatch(m -> m.contains("dead-lettered") && m.contains("poison pill"));

      // The hung call ended late; its result settled nothing, and the worker still delivers.
      assertThat(hangEnded.await(10, TimeUnit.SECONDS)).as("the hung handler returned").isTrue();
      String late = dsl.transactionResult(tx -> outbox.write(tx.dsl(), "late", "fault.ok", "{}"));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> attemptsOf(calls, late).equals(List.of(1)));
      assertThat(attemptsOf(calls, heads.get("fault.hang"))).containsExactly(1, 2);
    } finally {
      Faults.release(OutboxRelay.class, log);
    }
  }

  private static Call call(OutboxMessage m) {
    return new Call(m.topic(), m.aggregate(), m.id(), m.attempt());
  }

  private static List<Integer> attemptsOf(List<Call> calls, String id) {
    return calls.stream().filter(c -> c.id().equals(id)).map(Call::attempt).toList();
  }

  private static int indexOf(List<Call> calls, String id, int attempt) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).id().equals(id) && calls.get(i).attempt() == attempt) {
        return i;
      }
    }
    throw new AssertionError("no call of " + id + " attempt " + attempt + " in " + calls);
  }

  private static int lastIndexOf(List<Call> calls, String id) {
    for (int i = calls.size() - 1; i >= 0; i--) {
      if (calls.get(i).id().equals(id)) {
        return i;
      }
    }
    throw new AssertionError("no call of " + id);
  }

  /** Message {@code id} wherever stored (on PostgreSQL a delivered one may be the log's only). */
  private static MessageRow row(DSLContext dsl, String id) {
    return MessageRow.of(dsl, java.time.Clock.systemUTC(), id);
  }

  /** Messages neither sent nor dead, wherever stored. */
  private static long pending(DSLContext dsl) {
    return Faults.pending(dsl);
  }

  private static void sleepUninterruptibly(Duration duration) {
    long end = System.nanoTime() + duration.toNanos();
    boolean interrupted = false;
    while (System.nanoTime() < end) {
      try {
        TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
