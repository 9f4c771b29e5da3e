package dev.jooqoutbox.testing;

import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A migrated SQLite database for a test class whose methods are static (Spring's context runners
 * and their nested configurations): opened before the class, emptied before each test, dropped
 * after the class. Register it as a {@code static} field with {@code @RegisterExtension}.
 */
public final class MigratedSqlite
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

  private TestDatabase db;

  @Override
  public void beforeAll(ExtensionContext context) {
    db = TestDatabase.migrated(TestDatabase.Kind.SQLITE);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    db.truncate();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    db.close();
  }

  /** The database itself, for helpers that take one. */
  public TestDatabase database() {
    return db;
  }

  public DSLContext dsl() {
    return db.dsl();
  }

  public String url() {
    return db.url();
  }

  public SQLDialect dialect() {
    return db.dialect();
  }

  public DataSource dataSource() {
    return db.dataSource();
  }
}
