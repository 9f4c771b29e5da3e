package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.internal.naming.OutboxNaming;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relays of this JVM, by database, for writers to wake in process when their transaction
 * commits. A database is named by the JDBC URL its connections report, so a relay and a writer on
 * the same pool (or on pools with the same URL) meet; one whose URL cannot be read (the database is
 * down when the relay starts) is woken by every commit in the JVM instead, which costs it empty
 * claims, never a missed commit.
 *
 * <p>Not API. The relay engine calls {@link #register} when it starts and closes the registration
 * when it stops.
 */
public final class Wakeups {

  private static final Logger log = LoggerFactory.getLogger(Wakeups.class);

  /** The key of relays whose database could not be named: woken by every commit. */
  static final String ANY = "";

  private static final Map<String, Set<Runnable>> RELAYS = new ConcurrentHashMap<>();

  private Wakeups() {}

  /** A relay's place in the registry; {@link #close} takes it out. */
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Registers a relay on {@code dsl}'s database: {@code onCommit} runs, on the writer's thread
   * right after its commit, each time a transaction that wrote messages on that database commits in
   * this JVM. It must be quick and must not throw ({@code Wakeup::signal}). Reads the database's
   * URL from one connection of {@code dsl}.
   */
  public static Registration register(DSLContext dsl, Runnable onCommit) {
    Objects.requireNonNull(onCommit, "onCommit");
    String key;
    try {
      key = keyOf(dsl);
    } catch (RuntimeException e) {
      log.warn(
          "outbox relay cannot name its database ({}); every commit in this JVM will wake it",
          e.toString());
      key = ANY;
    }
    String registered = key;
    RELAYS.computeIfAbsent(registered, k -> ConcurrentHashMap.newKeySet()).add(onCommit);
    return () ->
        RELAYS.computeIfPresent(
            registered,
            (k, set) -> {
              set.remove(onCommit);
              return set.isEmpty() ? null : set;
            });
  }

  /** Wakes the relays registered on database {@code key}, and those that could not name theirs. */
  static void signal(String key) {
    signalAll(RELAYS.get(key));
    if (!key.equals(ANY)) {
      signalAll(RELAYS.get(ANY));
    }
  }

  private static void signalAll(Set<Runnable> relays) {
    if (relays != null) {
      for (Runnable relay : relays) {
        relay.run();
      }
    }
  }

  /** The name of {@code dsl}'s database: the URL its connections report. */
  static String keyOf(DSLContext dsl) {
    // A named outbox's relays are woken by the writes of that outbox only.
    return OutboxNaming.wakeupKey(dsl.connectionResult(Wakeups::urlOf), dsl.settings());
  }

  private static String urlOf(Connection connection) throws java.sql.SQLException {
    String url = connection.getMetaData().getURL();
    return url == null ? ANY : url;
  }
}
