package dev.jooqoutbox.internal.wakeup;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * A transaction on one JDBC connection that runs after-commit actions, with the {@link AfterCommit}
 * hook that feeds them: the shape of an integration's hook (Spring's keeps its actions with the
 * transaction it synchronizes).
 */
final class PlainJdbcTransaction {

  /** Knows the transactions of this class by the data they put on their context. */
  static final AfterCommit HOOK =
      (tx, action) -> {
        if (tx.configuration().data(PlainJdbcTransaction.class) instanceof PlainJdbcTransaction t) {
          t.actions.add(action);
          return true;
        }
        return false;
      };

  private final Connection connection;
  private final DSLContext dsl;
  private final Set<Runnable> actions = new LinkedHashSet<>();

  PlainJdbcTransaction(Connection connection, SQLDialect dialect) throws SQLException {
    this.connection = connection;
    connection.setAutoCommit(false);
    this.dsl = DSL.using(connection, dialect);
    dsl.configuration().data(PlainJdbcTransaction.class, this);
  }

  DSLContext dsl() {
    return dsl;
  }

  void commit() throws SQLException {
    connection.commit();
    connection.setAutoCommit(true);
    actions.forEach(Runnable::run);
  }
}
