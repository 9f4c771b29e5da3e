package dev.jooqoutbox.spring;

import dev.jooqoutbox.testing.TestDatabase;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Application contexts as a spring-boot-starter-jooq application has them, on a test database. */
final class Contexts {

  private Contexts() {}

  /**
   * Boot's DataSource (a pool of its own), transaction manager, Jackson and jOOQ, and the outbox's
   * auto-configurations, on {@code db}.
   */
  static ApplicationContextRunner runner(TestDatabase db) {
    return new ApplicationContextRunner()
        .withConfiguration(BootLine.jooq())
        .withConfiguration(BootLine.outbox())
        .withPropertyValues(
            "spring.datasource.url=" + db.url(),
            "spring.datasource.hikari.maximum-pool-size=4",
            "spring.jooq.sql-dialect=" + db.dialect().name(),
            "spring.liquibase.enabled=true");
  }
}
