package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestDatabase.Kind;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class PostgresDemoTest extends DemoContract {

  private static TestDatabase db;

  @BeforeAll
  static void open() {
    db = TestDatabase.empty(Kind.POSTGRES);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Override
  String url() {
    return db.url();
  }

  @Override
  DSLContext dsl() {
    return db.dsl();
  }
}
