package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code jooq-outbox.name} (docs/guide.md, "Named outboxes"): the schema, the Outbox, Inbox and
 * OutboxAdmin beans and the relay all work on the named outbox. The named outbox's queries are
 * tested on every dialect by NamedOutboxContract; this test covers the wiring, on SQLite.
 */
class NamedOutboxSpringTest {

  private static final OutboxName BILLING = OutboxName.of("billing");

  private TestDatabase db;

  @BeforeEach
  void createDatabase() {
    db = TestDatabase.empty(TestDatabase.Kind.SQLITE);
  }

  @AfterEach
  void dropDatabase() {
    db.close();
  }

  @Test
  void everyBeanAndTheRelayUseTheNamedOutbox() {
    List<String> delivered = new CopyOnWriteArrayList<>();
    Contexts.runner(db)
        .withPropertyValues("jooq-outbox.name=billing", "jooq-outbox.relay.poll-interval=50ms")
        .withBean(
            OutboxRelayCustomizer.class,
            () -> relay -> relay.handler("invoice.sent", m -> delivered.add(m.aggregate())))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              DSLContext dsl = db.dsl();
              assertThat(OutboxSchema.isMigrated(dsl, BILLING)).isTrue();
              assertThat(OutboxSchema.isMigrated(dsl)).isFalse();

              Contexts.write(context, "inv-1", "invoice.sent", "{}");
              await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 1);
              assertThat(delivered).containsExactly("inv-1");
              assertThat(dsl.fetchCount(DSL.table(DSL.name(BILLING.outboxTable())))).isEqualTo(1);
              await()
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> context.getBean(OutboxAdmin.class).stats().sentAwaitingPurge() == 1);

              Inbox inbox = context.getBean(Inbox.class);
              new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                  .executeWithoutResult(
                      s -> inbox.seen(context.getBean(DSLContext.class), "c", "inv-1"));
              assertThat(dsl.fetchCount(DSL.table(DSL.name(BILLING.inboxTable())))).isEqualTo(1);
            });
  }

  @Test
  void anInvalidNameStopsTheStartNamingTheProperty() {
    Contexts.runner(db)
        .withPropertyValues("jooq-outbox.name=Billing", "jooq-outbox.relay.enabled=false")
        .run(
            context ->
                Contexts.assertFailedSaying(
                    context, "jooq-outbox.name: invalid outbox name \"Billing\""));
  }
}
