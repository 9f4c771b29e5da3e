package com.example.shop;

import java.sql.Connection;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

/**
 * Applies the shop's changelog ({@code db/shop-changelog.xml}: the outbox's tables and the shop's
 * own) with Liquibase, as the application would at startup or CI before its tests.
 */
public final class ShopSchema {

  /** The master changelog, on the classpath. */
  public static final String CHANGELOG = "db/shop-changelog.xml";

  private ShopSchema() {}

  /** Brings the database of {@code dataSource} up to date; a second call changes nothing. */
  public static void migrate(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      // The changelogs are resources: ours in this jar, the outbox's in jooq-outbox's.
      Scope.child(
          Scope.Attr.resourceAccessor,
          new ClassLoaderResourceAccessor(ShopSchema.class.getClassLoader()),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                  .execute());
    } catch (Exception e) { // SQLException, LiquibaseException, and Scope.child's Exception
      throw new IllegalStateException("cannot migrate the shop's schema", e);
    }
  }
}
