package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * No handler of a batch starts in the second half of its lease: what is left of the batch then goes
 * back unstarted, without using an attempt, and the half the lease has left is for running and
 * settling. Time moves on the relay's {@link dev.jooqoutbox.testing.MutableClock}.
 */
abstract class RelayHalfLeaseContract extends RelayContractSupport {

  RelayHalfLeaseContract(TestDatabase.Kind kind) {
    super(kind);
  }

  /** When a handler started, on the relay's clock, and when the lease it ran under ends. */
  private record Start(String id, int attempt, Instant at, Instant leaseEnd) {}

  private Start started(OutboxMessage m) {
    return new Start(m.id(), m.attempt(), clock.instant(), row(m.id()).getLockedUntil());
  }

  @Test
  void noHandlerStartsInTheSecondHalfOfTheLeaseAfterASlowClaim() {
    // The claim "takes" 16 s of the relay's 30 s lease (a struggling database): every handler of
    // that batch would start in the second half of its lease, so the batch goes back unstarted,
    // without using an attempt, and the next claim delivers it.
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(write("order-" + i, "orders", Map.of("n", i)));
    }
    AtomicBoolean slowClaimPending = new AtomicBoolean(true);
    DSLContext slowDsl =
        DSL.using(
            advancingClockOnFirstUpdate(slowClaimPending, Duration.ofSeconds(16)), db.dialect());
    List<Start> starts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            OutboxRelay.builder(slowDsl)
                .clock(clock)
                .listen(false)
                .lease(Duration.ofSeconds(30))
                .handlerConcurrency(3)
                .handler("orders", m -> starts.add(started(m)))
                .build());

    assertThat(relay.drainOnce(100)).isEqualTo(3);

    assertThat(slowClaimPending).as("the slow claim happened").isFalse();
    assertThat(starts).extracting(Start::id).containsExactlyInAnyOrderElementsOf(ids);
    for (Start start : starts) {
      assertThat(start.at())
          .as("start of %s, under a lease ending %s", start.id(), start.leaseEnd())
          .isBefore(start.leaseEnd().minus(Duration.ofSeconds(15)));
      assertThat(start.attempt()).as("the released claim gave its attempt back").isEqualTo(1);
    }
  }

  /**
   * The test database, but the first UPDATE any of its connections prepares (the claim's: nothing
   * updates before it) first moves the relay's clock by {@code by}. At the JDBC level, so it also
   * sees the SQLite claim, which runs on a context of its own over the raw connection.
   */
  private DataSource advancingClockOnFirstUpdate(AtomicBoolean pending, Duration by) {
    InvocationHandler onConnection =
        (self, method, args) -> {
          Object result = invoke(db.dataSource(), method, args);
          return method.getName().equals("getConnection")
              ? proxy(
                  Connection.class,
                  (connectionSelf, m, a) -> {
                    if (m.getName().equals("prepareStatement")
                        && a[0] instanceof String sql
                        && sql.toLowerCase(Locale.ROOT).startsWith("update")
                        && pending.getAndSet(false)) {
                      clock.advance(by);
                    }
                    return invoke(result, m, a);
                  })
              : result;
        };
    return proxy(DataSource.class, onConnection);
  }

  private static <T> T proxy(Class<T> type, InvocationHandler handler) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Disabled(
      "issue 10 part B: OutboxRelay.acquireSlot turns the time left until lastStart into a"
          + " real-time wait once and does not look at the relay's clock again once a slot is"
          + " free, so a handler can start in the second half of its lease when the relay's"
          + " clock moves on while it waits for a slot (a clock step; here the MutableClock)")
  @Test
  void noHandlerStartsInTheSecondHalfOfTheLeaseAfterWaitingForASlot() throws Exception {
    String first = write("order-1", "orders", Map.of("n", 1));
    String second = write("order-2", "orders", Map.of("n", 2));
    AtomicReference<Thread> drainer = new AtomicReference<>();
    List<Start> starts = new CopyOnWriteArrayList<>();
    OutboxRelay relay =
        closeLater(
            relay()
                .lease(Duration.ofSeconds(30))
                .handlerConcurrency(1)
                .handler(
                    "orders",
                    m -> {
                      starts.add(started(m));
                      if (m.id().equals(first)) {
                        // The second message waits for this handler's slot; meanwhile 16 s of
                        // the 30 s lease pass on the relay's clock.
                        await()
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> drainer.get().getState() == Thread.State.TIMED_WAITING);
                        clock.advance(Duration.ofSeconds(16));
                      }
                    })
                .build());
    Thread thread = new Thread(() -> relay.drainOnce(10), "test-drainer");
    drainer.set(thread);
    thread.start();
    thread.join(TimeUnit.SECONDS.toMillis(30));

    // The second message goes back unstarted and the next claim of the same drain delivers it.
    assertThat(starts).extracting(Start::id).containsExactly(first, second);
    for (Start start : starts) {
      assertThat(start.at())
          .as("start of %s, under a lease ending %s", start.id(), start.leaseEnd())
          .isBefore(start.leaseEnd().minus(Duration.ofSeconds(15)));
      assertThat(start.attempt()).as("attempt of %s", start.id()).isEqualTo(1);
    }
  }
}
