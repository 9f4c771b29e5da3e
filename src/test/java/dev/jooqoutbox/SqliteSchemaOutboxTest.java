package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.testing.EmptyDatabasePerTest;
import dev.jooqoutbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** SQLite has no schemas: an outbox with one is refused at migrate and build time. */
class SqliteSchemaOutboxTest extends EmptyDatabasePerTest {

  private static final OutboxName IN_SCHEMA = OutboxName.DEFAULT.inSchema("tenant_a");

  SqliteSchemaOutboxTest() {
    super(TestDatabase.Kind.SQLITE);
  }

  @Test
  void anOutboxWithASchemaIsRefused() {
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), IN_SCHEMA))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("SQLite has no schemas");
    db.migrate();
    assertThatThrownBy(() -> Outbox.builder(dsl).name(IN_SCHEMA).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SQLite has no schemas");
    assertThatThrownBy(() -> OutboxRelay.builder(dsl).name(IN_SCHEMA).handler("t", m -> {}).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SQLite has no schemas");
  }
}
