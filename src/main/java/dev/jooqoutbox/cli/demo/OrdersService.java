package dev.jooqoutbox.cli.demo;

import static dev.jooqoutbox.cli.demo.DemoTables.ORDERS;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_AMOUNT;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_CUSTOMER;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_CUSTOMER_SEQ;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_ID;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_PLACED_AT;

import dev.jooqoutbox.Outbox;
import org.jooq.DSLContext;

/**
 * The demo's "orders" service: it stores an order and writes its {@code order.placed} message in
 * one transaction, the pattern the outbox exists for. Either both commit or neither does.
 */
record OrdersService(DSLContext dsl, Outbox outbox, DemoCounters counters) {

  /** Places {@code order}: the order row and its message, with the customer as the aggregate. */
  void place(OrderPlaced order) {
    dsl.transaction(
        tx -> {
          tx.dsl()
              .insertInto(ORDERS)
              .set(ORDER_ID, order.orderId())
              .set(ORDER_CUSTOMER, order.customer())
              .set(ORDER_CUSTOMER_SEQ, order.customerSeq())
              .set(ORDER_AMOUNT, order.amountCents())
              .set(ORDER_PLACED_AT, order.placedAtMillis())
              .execute();
          outbox.write(tx.dsl(), order.customer(), OrderPlaced.TOPIC, order);
          // The last step before the commit: a relay cannot see the message any earlier.
          counters.committing(order.orderId());
        });
    counters.countWritten();
  }
}
