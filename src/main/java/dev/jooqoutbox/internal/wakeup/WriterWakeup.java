package dev.jooqoutbox.internal.wakeup;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.impl.DefaultConnectionProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's side of waking relays, one per {@code Outbox}. After the transaction a write joined
 * commits, the relays of this JVM on the same database are woken at once ({@link Wakeups}), and
 * where the database can tell other processes (PostgreSQL) a {@link CoalescingNotifier} sends one
 * {@code NOTIFY} from a connection of its own a few milliseconds later. Nothing of this runs inside
 * the writer's transaction, so writers never wait for each other's notifications.
 *
 * <p>That needs an after-commit hook ({@link AfterCommit}) for the write's transaction. jOOQ's own
 * transactions on the context an outbox is built on get one: building the outbox adds {@link
 * AfterCommit#jooqTransactionListener()} to that configuration. Without one (a transaction on a
 * plain JDBC connection, a configuration whose transactions another TransactionProvider runs), the
 * write falls back to what the database offers inside the transaction: on PostgreSQL a {@code
 * NOTIFY} delivered at commit (the commits of such writers then queue on PostgreSQL's notification
 * lock); elsewhere nothing, and relays find the message at their next poll. The same fallback
 * serves every write of an outbox bound to a single connection on PostgreSQL: its notifier would
 * have to share that connection with the writer's transaction.
 */
public final class WriterWakeup {

  private static final Logger log = LoggerFactory.getLogger(WriterWakeup.class);

  private final JooqOutboxRepository repository;
  private final CoalescingNotifier notifier; // null: no notifications to other processes
  private final boolean afterCommit;
  private final Map<String, Runnable> wakeByDatabase = new ConcurrentHashMap<>();

  /**
   * @param repository where the fallback and the notifier's statements run
   * @param dsl the outbox's own context: the notifier takes its connections from there
   * @param hooked whether transactions on the context the outbox was built on have an after-commit
   *     hook ({@link AfterCommit#installFor}); on PostgreSQL a warning says what to change if not
   */
  public WriterWakeup(JooqOutboxRepository repository, DSLContext dsl, boolean hooked) {
    this.repository = repository;
    boolean notifies = repository.notifiesOtherProcesses();
    boolean connectionsOfItsOwn =
        !(dsl.configuration().connectionProvider() instanceof DefaultConnectionProvider);
    this.notifier =
        notifies && connectionsOfItsOwn
            ? new CoalescingNotifier(repository::notifyOtherProcesses)
            : null;
    this.afterCommit = !notifies || connectionsOfItsOwn;
    if (notifies && connectionsOfItsOwn && !hooked) {
      log.warn(
          "jooq-outbox: the DSLContext's transactions are run by {}, which tells the outbox of no"
              + " commit: writes in them NOTIFY inside the transaction, so PostgreSQL commits"
              + " such writers one at a time. Give its configuration Outbox.transactionListener()"
              + " if jOOQ's transaction calls reach it, or build the Outbox with"
              + " notifyOnWrite(false) to leave waking to the relays' poll",
          dsl.configuration().transactionProvider().getClass().getName());
    }
  }

  /** Arranges the wake-up for a message of {@code topic} just inserted on {@code tx}. */
  public void written(DSLContext tx, String topic) {
    if (afterCommit
        && AfterCommit.anyRunAfterCommit(
            tx, wakeByDatabase.computeIfAbsent(databaseOf(tx), this::wakeAfterCommit))) {
      return;
    }
    repository.notifyRelays(tx, topic);
  }

  private Runnable wakeAfterCommit(String database) {
    return () -> {
      Wakeups.signal(database);
      if (notifier != null) {
        notifier.request();
      }
    };
  }

  private static String databaseOf(DSLContext tx) {
    try {
      return Wakeups.keyOf(tx);
    } catch (RuntimeException e) {
      return Wakeups.ANY; // wakes every relay of the JVM: a few empty claims, never a missed commit
    }
  }
}
