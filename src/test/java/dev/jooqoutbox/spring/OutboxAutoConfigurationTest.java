package dev.jooqoutbox.spring;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.InvalidMessageException;
import dev.jooqoutbox.NoTransactionException;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestDatabase;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The writer's beans, their conditions and properties, and the schema at startup, on a real SQLite
 * file through Spring Boot's own DataSource, transaction and jOOQ auto-configurations.
 */
class OutboxAutoConfigurationTest {

  private TestDatabase db;

  @BeforeEach
  void database() {
    db = TestDatabase.empty(TestDatabase.Kind.SQLITE);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private ApplicationContextRunner runner() {
    return Contexts.runner(db).withPropertyValues("jooq-outbox.relay.enabled=false");
  }

  @Test
  void anApplicationWithOneDslContextGetsAnOutboxAnInboxAndAnAdmin() {
    runner()
        .run(
            context -> {
              assertThat(context).hasSingleBean(Outbox.class);
              assertThat(context).hasSingleBean(Inbox.class);
              assertThat(context).hasSingleBean(OutboxAdmin.class);
              assertThat(context).hasSingleBean(OutboxProperties.class);
            });
  }

  @Test
  void withoutADslContextNothingIsConfigured() {
    new ApplicationContextRunner()
        .withConfiguration(BootLine.outbox())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(Outbox.class);
              assertThat(context).doesNotHaveBean(OutboxAdmin.class);
            });
  }

  @Test
  void eachBeanBacksOffWhenTheApplicationDefinesItsOwn() {
    runner()
        .withBean("myOutbox", Outbox.class, () -> Outbox.create(db.dsl()))
        .withBean("myInbox", Inbox.class, Inbox::new)
        .withBean("myAdmin", OutboxAdmin.class, () -> OutboxAdmin.create(db.dsl()))
        .run(
            context -> {
              assertThat(context).hasSingleBean(Outbox.class).hasBean("myOutbox");
              assertThat(context).hasSingleBean(Inbox.class).hasBean("myInbox");
              assertThat(context).hasSingleBean(OutboxAdmin.class).hasBean("myAdmin");
            });
  }

  @Test
  void aWriteJoinsTheSpringTransactionAndRollsBackWithIt() {
    runner()
        .run(
            context -> {
              Outbox outbox = context.getBean(Outbox.class);
              DSLContext dsl = context.getBean(DSLContext.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              tx.executeWithoutResult(s -> outbox.write("order-1", "order.placed", "{\"n\":1}"));
              tx.executeWithoutResult(
                  s -> {
                    outbox.write("order-2", "order.placed", "{\"n\":2}");
                    s.setRollbackOnly();
                  });
              assertThat(
                      dsl.select(OUTBOX_MESSAGE.AGGREGATE)
                          .from(OUTBOX_MESSAGE)
                          .fetch(OUTBOX_MESSAGE.AGGREGATE))
                  .containsExactly("order-1");
            });
  }

  @Test
  void aWriteOutsideASpringTransactionIsRefused() {
    runner()
        .run(
            context ->
                assertThatThrownBy(
                        () -> context.getBean(Outbox.class).write("order-1", "order.placed", "{}"))
                    .isInstanceOf(NoTransactionException.class));
  }

  @Test
  void aDuplicateIdIsANoOpThroughBootsExceptionTranslatingContext() {
    runner()
        .run(
            context -> {
              Outbox outbox = context.getBean(Outbox.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              for (int i = 0; i < 2; i++) {
                tx.executeWithoutResult(
                    s -> outbox.message("order-1", "order.placed", "{}").id("fixed-id").write());
              }
              assertThat(context.getBean(OutboxAdmin.class).pendingCount()).isEqualTo(1);
            });
  }

  @Test
  void payloadsAreWrittenWithTheApplicationsObjectMapper() {
    runner()
        .withBean(
            ObjectMapper.class,
            () -> new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE))
        .run(
            context -> {
              new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                  .executeWithoutResult(
                      s ->
                          context
                              .getBean(Outbox.class)
                              .write("order-1", "order.placed", new Placed("order-1", 3)));
              String json =
                  db.dsl()
                      .select(OUTBOX_MESSAGE.PAYLOAD)
                      .from(OUTBOX_MESSAGE)
                      .fetchSingle()
                      .value1()
                      .data();
              assertThat(json).contains("order_id");
            });
  }

  record Placed(String orderId, int items) {}

  @Test
  void theWritePropertiesReachTheOutbox() {
    runner()
        .withPropertyValues("jooq-outbox.write.max-payload-bytes=10")
        .run(
            context ->
                new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                    .executeWithoutResult(
                        s ->
                            assertThatThrownBy(
                                    () ->
                                        context
                                            .getBean(Outbox.class)
                                            .write("a", "t", "{\"long\":\"enough\"}"))
                                .isInstanceOf(InvalidMessageException.class)
                                .hasMessageContaining("over the limit of 10")));
  }

  @Test
  void anInvalidWritePropertyStopsTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("jooq-outbox.write.max-payload-bytes=0")
        .run(
            context ->
                Contexts.assertFailedSaying(
                    context, "jooq-outbox.write.max-payload-bytes must be positive, was 0"));
  }

  @Test
  void byDefaultTheOutboxMigratesItsTablesWhenTheyAreMissing() {
    runner()
        .run(
            context -> {
              assertThat(context.getBean(OutboxSchemaInitializer.class).migrated()).isTrue();
              assertThat(OutboxSchema.isMigrated(db.dsl())).isTrue();
            });
    runner()
        .run(
            context ->
                assertThat(context.getBean(OutboxSchemaInitializer.class).migrated()).isFalse());
  }

  @Test
  void migrateNeverLeavesTheSchemaAlone() {
    runner()
        .withPropertyValues("jooq-outbox.schema.migrate=never")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(OutboxSchema.isMigrated(db.dsl())).isFalse();
            });
  }

  @Test
  void migrateAlwaysRunsTheChangelogAtEveryStart() {
    db.migrate();
    runner()
        .withPropertyValues("jooq-outbox.schema.migrate=always")
        .run(
            context ->
                assertThat(context.getBean(OutboxSchemaInitializer.class).migrated()).isTrue());
  }

  @Test
  void theApplicationsLiquibaseIncludingTheChangelogRunsFirstAndTheOutboxDoesNotMigrateAgain() {
    runner()
        .withConfiguration(BootLine.liquibase())
        .withPropertyValues("spring.liquibase.change-log=classpath:db/changelog/orders-app.xml")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(OutboxSchemaInitializer.class).migrated()).isFalse();
              assertThat(OutboxSchema.isMigrated(db.dsl())).isTrue();
            });
  }

  @Test
  void anUnknownMigrateValueStopsTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("jooq-outbox.schema.migrate=sometimes")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "Failed to bind properties under 'jooq-outbox.schema.migrate'"));
  }

  @Test
  void theAdminDoesNotJoinTheCallersTransaction() {
    runner()
        .run(
            context -> {
              Outbox outbox = context.getBean(Outbox.class);
              OutboxAdmin admin = context.getBean(OutboxAdmin.class);
              new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                  .executeWithoutResult(
                      s -> {
                        outbox.write("order-1", "order.placed", "{}");
                        // Not committed yet: an admin on its own connection does not see it.
                        assertThat(admin.pendingCount()).isZero();
                      });
              assertThat(admin.pendingCount()).isEqualTo(1);
            });
  }
}
