package dev.jooqoutbox.spring;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jooq.Configuration;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.ExecuteListenerProvider;
import org.jooq.impl.DSL;
import org.jooq.impl.DataSourceConnectionProvider;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * The two views of the application's {@link DSLContext} that the outbox needs.
 *
 * <p>Spring Boot's context translates jOOQ's exceptions into Spring's ({@code
 * ExceptionTranslatorExecuteListener}); the core classifies jOOQ's own (a duplicate message id on
 * MariaDB, a deadlock victim), so both views leave that one listener out.
 */
final class SpringDsl {

  /** Boot 3 and Boot 4 name the translator's interface in different packages. */
  private static final Set<String> TRANSLATORS =
      Set.of(
          "org.springframework.boot.autoconfigure.jooq.ExceptionTranslatorExecuteListener",
          "org.springframework.boot.jooq.autoconfigure.ExceptionTranslatorExecuteListener");

  private SpringDsl() {}

  /**
   * The application's context without the exception translator: its statements still join the
   * Spring transaction of the calling thread. For the {@code Outbox} and the {@code Inbox}.
   */
  static DSLContext joiningTransactions(DSLContext app) {
    Configuration configuration = app.configuration();
    ExecuteListenerProvider[] kept =
        Arrays.stream(configuration.executeListenerProviders())
            .filter(p -> !isTranslator(p))
            .toArray(ExecuteListenerProvider[]::new);
    return DSL.using(configuration.derive(kept));
  }

  /**
   * A context on the application's {@link DataSource} itself, never joining a Spring transaction:
   * each statement or jOOQ transaction commits on its own. For the relay, whose claims and settles
   * must not become part of a caller's transaction, and for {@code OutboxAdmin}. Falls back to
   * {@link #joiningTransactions} when the context is not built on a DataSource.
   */
  static DSLContext ownTransactions(DSLContext app) {
    return dataSource(app)
        .map(ds -> DSL.using(ds, app.dialect(), app.settings()))
        .orElseGet(() -> joiningTransactions(app));
  }

  /** The DataSource under the context, unwrapped from Spring's transaction-aware proxy. */
  static Optional<DataSource> dataSource(DSLContext app) {
    ConnectionProvider provider = app.configuration().connectionProvider();
    if (!(provider instanceof DataSourceConnectionProvider connections)) {
      return Optional.empty();
    }
    DataSource dataSource = connections.dataSource();
    if (dataSource instanceof TransactionAwareDataSourceProxy proxy
        && proxy.getTargetDataSource() != null) {
      dataSource = proxy.getTargetDataSource();
    }
    return Optional.of(dataSource);
  }

  private static boolean isTranslator(ExecuteListenerProvider provider) {
    Object listener = provider.provide();
    return ClassUtils.getAllInterfacesForClassAsSet(listener.getClass()).stream()
        .anyMatch(type -> TRANSLATORS.contains(type.getName()));
  }
}
