package dev.jooqoutbox.testing;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Liquibase updates the way an older release or a partial run left a database, for upgrade tests: a
 * changelog from the test class path, or only the first changesets of one.
 */
public final class TestChangelogs {

  private TestChangelogs() {}

  /** Applies every changeset of {@code changelog} (a class path resource) not yet applied. */
  public static void update(DataSource dataSource, String changelog) throws Exception {
    run(
        dataSource,
        changelog,
        liquibase -> liquibase.update(new Contexts(), new LabelExpression()));
  }

  /** Applies only the next {@code count} changesets of {@code changelog} for this database. */
  public static void updateCount(DataSource dataSource, String changelog, int count)
      throws Exception {
    run(
        dataSource,
        changelog,
        liquibase -> liquibase.update(count, new Contexts(), new LabelExpression()));
  }

  /** The ids of the changesets applied to the database of {@code dsl}, in the order applied. */
  public static List<String> applied(DSLContext dsl) {
    // Liquibase's names are upper case on some dialects, lower case on others: the table by the
    // name the server reports (MariaDB's table names are case sensitive), the columns unquoted.
    String changelog =
        dsl.meta().getTables().stream()
            .map(Table::getName)
            .filter(name -> name.equalsIgnoreCase("databasechangelog"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no databasechangelog table"));
    Field<String> id = DSL.field(DSL.unquotedName("id"), String.class);
    return dsl.select(id)
        .from(DSL.table(DSL.name(changelog)))
        .orderBy(DSL.field(DSL.unquotedName("orderexecuted")))
        .fetch(id);
  }

  @FunctionalInterface
  private interface Work {
    void run(Liquibase liquibase) throws Exception;
  }

  private static void run(DataSource dataSource, String changelog, Work work) throws Exception {
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      var accessor = new ClassLoaderResourceAccessor(TestChangelogs.class.getClassLoader());
      Scope.child(
          Map.of(
              Scope.Attr.resourceAccessor.name(),
              accessor,
              Scope.Attr.ui.name(),
              new LoggerUIService()),
          () -> {
            @SuppressWarnings("deprecation") // the command API needs the same three arguments
            Liquibase liquibase = new Liquibase(changelog, accessor, database);
            work.run(liquibase);
          });
    }
  }
}
