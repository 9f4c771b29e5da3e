package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.testing.TestDatabase;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

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

  /** Writes one message with the context's Outbox in a Spring transaction; returns its id. */
  static String write(ApplicationContext context, String aggregate, String topic, Object payload) {
    return new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
        .execute(s -> context.getBean(Outbox.class).write(aggregate, topic, payload));
  }

  /** The context did not start, and the root cause of its failure says {@code message}. */
  static void assertFailedSaying(AssertableApplicationContext context, String message) {
    assertThat(context).getFailure().rootCause().hasMessageContaining(message);
  }
}
