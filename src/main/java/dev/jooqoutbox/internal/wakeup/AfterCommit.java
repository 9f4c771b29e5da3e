package dev.jooqoutbox.internal.wakeup;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;

/**
 * A way to run an action right after the transaction a write joined commits: the writer's fast path
 * to relays ({@link WriterWakeup}). Built in: jOOQ's transactions on a configuration that carries
 * {@link #jooqTransactionListener()}. An integration adds its own with {@link #register} (the
 * Spring integration: one for transactions Spring manages, through {@code
 * TransactionSynchronizationManager}); Spring is not a dependency of the core, so the core has no
 * such hook of its own.
 *
 * <p>Not API: for integrations inside this jar.
 */
public interface AfterCommit {

  /**
   * Arranges for {@code action} to run once, right after the transaction {@code tx} is part of
   * commits, on the committing thread, and never when it rolls back; returns true. Returns false,
   * doing nothing, when this hook does not manage {@code tx}'s transaction. Within one transaction
   * it may be asked several times with the same action: running it once is enough. The action is
   * quick and does not throw.
   */
  boolean runAfterCommit(DSLContext tx, Runnable action);

  /**
   * Adds {@code hook} to those asked after the built-in one, for the life of the JVM; a hook
   * registered again (a second application context) is kept once.
   */
  static void register(AfterCommit hook) {
    Hooks.REGISTERED.addIfAbsent(Objects.requireNonNull(hook, "hook"));
  }

  /**
   * The jOOQ listener that gives jOOQ transactions the fast path: {@code
   * configuration.deriveAppending(listener)}. Nested transactions (savepoints) count once their
   * outermost transaction commits.
   */
  static org.jooq.TransactionListener jooqTransactionListener() {
    return JooqTransactions.INSTANCE;
  }

  /**
   * Gives jOOQ's own transactions on {@code dsl}'s configuration the built-in hook: adds {@link
   * #jooqTransactionListener()} to it when jOOQ manages its transactions and it lacks the listener.
   * Returns whether writes in transactions of {@code dsl} have an after-commit hook now (the
   * built-in one, or a registered integration's).
   */
  static boolean installFor(DSLContext dsl) {
    return JooqTransactions.installInto(dsl.configuration()) || !Hooks.REGISTERED.isEmpty();
  }

  /** Asks each hook in turn, the built-in one first; false when none manages {@code tx}. */
  static boolean anyRunAfterCommit(DSLContext tx, Runnable action) {
    if (JooqTransactions.INSTANCE.runAfterCommit(tx, action)) {
      return true;
    }
    for (AfterCommit hook : Hooks.REGISTERED) {
      if (hook.runAfterCommit(tx, action)) {
        return true;
      }
    }
    return false;
  }

  /** The registered hooks. */
  final class Hooks {
    static final CopyOnWriteArrayList<AfterCommit> REGISTERED = new CopyOnWriteArrayList<>();

    private Hooks() {}
  }
}
