package dev.jooqoutbox.internal.wakeup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jooq.Configuration;
import org.jooq.DSLContext;
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;
import org.jooq.TransactionListenerProvider;
import org.jooq.impl.DefaultTransactionListenerProvider;
import org.jooq.impl.DefaultTransactionProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After-commit actions for jOOQ's own transactions ({@code dsl.transaction(...)}): the listener
 * opens a scope in the configuration of each transaction it sees begin (jOOQ derives one
 * configuration per transaction and hands it to the transactional code), writes add their action to
 * the scope of the configuration they run on, and the outermost commit runs them. A nested
 * transaction's scope counts only if it committed and its outer one commits too; a rollback drops
 * its scope's actions. A write on a configuration this listener never saw begin finds no scope.
 */
final class JooqTransactions implements TransactionListener, AfterCommit {

  static final JooqTransactions INSTANCE = new JooqTransactions();

  private static final Logger log = LoggerFactory.getLogger(JooqTransactions.class);
  private static final Object KEY = JooqTransactions.class.getName() + ".scope";

  private JooqTransactions() {}

  /**
   * Adds this listener to {@code configuration} unless it carries it already, when jOOQ manages its
   * transactions ({@link DefaultTransactionProvider}): what {@code DSL.using(dataSource, dialect)}
   * gives. Returns whether the configuration carries it now. Another provider (Spring's, an
   * application's own) decides itself when a transaction commits, so its configuration is left as
   * it is: a hook of that integration serves it, or the fallback.
   */
  static boolean installInto(Configuration configuration) {
    if (!(configuration.transactionProvider() instanceof DefaultTransactionProvider)) {
      return carries(configuration);
    }
    synchronized (configuration) { // two outboxes built at once on one configuration add it once
      if (carries(configuration)) {
        return true;
      }
      TransactionListenerProvider[] providers = configuration.transactionListenerProviders();
      TransactionListenerProvider[] with = Arrays.copyOf(providers, providers.length + 1);
      with[providers.length] = new DefaultTransactionListenerProvider(INSTANCE);
      configuration.set(with);
      return true;
    }
  }

  /** Whether {@code configuration}'s transactions tell this listener when they begin and end. */
  static boolean carries(Configuration configuration) {
    for (TransactionListenerProvider provider : configuration.transactionListenerProviders()) {
      if (provider.provide() == INSTANCE) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean runAfterCommit(DSLContext tx, Runnable action) {
    if (tx.configuration().data(KEY) instanceof Scope scope) {
      scope.add(action);
      return true;
    }
    return false;
  }

  @Override
  public void beginEnd(TransactionContext ctx) {
    Configuration configuration = ctx.configuration();
    // A nested transaction's configuration is derived from its outer one's and inherits its data.
    Scope outer = configuration.data(KEY) instanceof Scope s ? s : null;
    configuration.data(KEY, outer == null ? new Scope() : outer.nested());
  }

  @Override
  public void commitEnd(TransactionContext ctx) {
    // Also called when the commit itself failed (then rollbackEnd follows and drops the scope):
    // such a transaction may wake relays once for nothing, which costs them one empty claim.
    if (ctx.configuration().data(KEY) instanceof Scope scope && scope.isOutermost()) {
      scope.runCommitted();
    }
  }

  @Override
  public void rollbackEnd(TransactionContext ctx) {
    if (ctx.configuration().data(KEY) instanceof Scope scope) {
      scope.rollBack();
    }
  }

  /** The actions of one transaction and of the transactions nested in it. */
  private static final class Scope {
    private final Scope outer;
    private final Set<Runnable> actions = new LinkedHashSet<>();
    private final List<Scope> nested = new ArrayList<>();
    private boolean rolledBack;

    Scope() {
      this(null);
    }

    private Scope(Scope outer) {
      this.outer = outer;
    }

    synchronized Scope nested() {
      Scope scope = new Scope(this);
      nested.add(scope);
      return scope;
    }

    boolean isOutermost() {
      return outer == null;
    }

    synchronized void add(Runnable action) {
      actions.add(action);
    }

    synchronized void rollBack() {
      rolledBack = true;
    }

    void runCommitted() {
      Set<Runnable> all = new LinkedHashSet<>();
      collect(all);
      for (Runnable action : all) {
        try {
          action.run();
        } catch (RuntimeException e) {
          log.warn(
              "outbox after-commit action failed; relays will find the messages by polling", e);
        }
      }
    }

    private synchronized void collect(Set<Runnable> into) {
      if (!rolledBack) {
        into.addAll(actions);
        for (Scope scope : nested) {
          scope.collect(into);
        }
      }
    }
  }
}
