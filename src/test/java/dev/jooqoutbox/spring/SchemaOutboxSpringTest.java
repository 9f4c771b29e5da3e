package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.testing.StoredMessages;
import dev.jooqoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code jooq-outbox.schema.name} (docs/spring-boot.md): the schema initializer, the Outbox bean
 * and the relay work on the outbox in that schema. The queries in a schema are tested by
 * SchemaOutboxContract; this test covers the wiring, on PostgreSQL.
 */
class SchemaOutboxSpringTest {

  private TestDatabase db;
  private TestDatabase other;

  @BeforeEach
  void createDatabases() {
    db = TestDatabase.empty(TestDatabase.Kind.POSTGRES);
    other = TestDatabase.empty(TestDatabase.Kind.POSTGRES, 1);
  }

  @AfterEach
  void dropDatabases() {
    other.close();
    db.close();
  }

  @Test
  void theBeansAndTheRelayUseTheOutboxInTheSchema() {
    List<String> delivered = new CopyOnWriteArrayList<>();
    Contexts.runner(db)
        .withPropertyValues(
            "jooq-outbox.schema.name=" + other.name(), "jooq-outbox.relay.poll-interval=50ms")
        .withBean(
            OutboxRelayCustomizer.class,
            () -> relay -> relay.handler("invoice.sent", m -> delivered.add(m.aggregate())))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(OutboxSchema.isMigrated(other.dsl())).isTrue();
              assertThat(
                      OutboxSchema.isMigrated(db.dsl(), OutboxName.DEFAULT.inSchema(other.name())))
                  .isTrue();

              Contexts.write(context, "inv-1", "invoice.sent", "{}");
              await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 1);
              // Stored in the schema, wherever a write puts it there (PostgreSQL's event log).
              assertThat(StoredMessages.of(other.dsl()).count()).isEqualTo(1);
            });
  }

  @Test
  void anInvalidSchemaStopsTheStartNamingTheProperty() {
    Contexts.runner(db)
        .withPropertyValues("jooq-outbox.schema.name=Tenant", "jooq-outbox.relay.enabled=false")
        .run(
            context ->
                Contexts.assertFailedSaying(
                    context, "jooq-outbox.schema.name: invalid schema name \"Tenant\""));
  }
}
