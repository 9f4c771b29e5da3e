package com.example.shop;

import static com.example.shop.db.Tables.ORDERS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.shop.db.tables.records.OrdersRecord;
import dev.jooqoutbox.InvalidMessageException;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.relay.OutboxRelay;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shop on one database: each test starts on a new, empty schema (PostgreSQL), database
 * (MariaDB) or file (SQLite), migrates it with the shop's changelog, and runs the service.
 */
abstract class ShopContract {

  private DataSource dataSource;
  private DSLContext dsl;
  private OrderService orders;

  /** Creates the empty schema, database or file this test runs on. */
  abstract DataSource createDatabase() throws Exception;

  /** Drops what {@link #createDatabase} created. */
  abstract void dropDatabase() throws Exception;

  abstract SQLDialect dialect();

  @BeforeEach
  void migrate() throws Exception {
    dataSource = createDatabase();
    ShopSchema.migrate(dataSource);
    dsl = DSL.using(dataSource, dialect());
    orders = new OrderService(dsl, Outbox.create(dsl));
  }

  @AfterEach
  void drop() throws Exception {
    dropDatabase();
  }

  @Test
  void theShopsChangelogCreatesItsTableAndTheOutboxsAndRunsAgainAsANoOp() {
    assertTrue(OutboxSchema.isMigrated(dsl), "the outbox's tables, from the included changelog");
    assertEquals(0, dsl.fetchCount(ORDERS));
    int applied = dsl.fetchCount(DSL.table(DSL.name(changelogTable())));

    ShopSchema.migrate(dataSource);

    assertEquals(applied, dsl.fetchCount(DSL.table(DSL.name(changelogTable()))));
  }

  @Test
  void anOrderAndItsMessageCommitTogetherAndTheRelayDeliversIt() {
    Order order = new Order("o-1", "customer-7", 4_200);

    String messageId = orders.place(order);

    OrdersRecord row = dsl.fetchSingle(ORDERS, ORDERS.ID.eq("o-1"));
    assertEquals("customer-7", row.getCustomer());
    assertEquals(4_200L, row.getCents());
    assertEquals(
        OrderService.ORDER_PLACED,
        OutboxAdmin.create(dsl).message(messageId).orElseThrow().topic());
    assertFalse(orders.delivered(messageId));

    List<Order> delivered = new ArrayList<>();
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler(
                OrderService.ORDER_PLACED, message -> delivered.add(message.payloadAs(Order.class)))
            .build()) {
      assertEquals(1, relay.drainOnce(10));
    }
    assertEquals(List.of(order), delivered);
    assertTrue(orders.delivered(messageId));
  }

  @Test
  void anOrderWhoseMessageIsRefusedIsNotStored() {
    // An empty aggregate (customer) is refused by the outbox after the order's insert ran.
    assertThrows(InvalidMessageException.class, () -> orders.place(new Order("o-2", "", 100)));

    assertEquals(0, dsl.fetchCount(ORDERS));
    assertEquals(0, OutboxAdmin.create(dsl).stats().pending());
  }

  /** Liquibase's history table: created in upper case, which PostgreSQL folds to lower case. */
  private String changelogTable() {
    return dialect() == SQLDialect.POSTGRES ? "databasechangelog" : "DATABASECHANGELOG";
  }
}
