package dev.jooqoutbox.spring.app;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;

import dev.jooqoutbox.Outbox;
import org.jooq.DSLContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Writes an order and its message in one Spring transaction. */
@Service
public class OrderService {

  private final DSLContext dsl;
  private final Outbox outbox;

  public OrderService(DSLContext dsl, Outbox outbox) {
    this.dsl = dsl;
    this.outbox = outbox;
  }

  @Transactional
  public void place(String orderId, String customer, long amount, String topic) {
    // The test application's own tables have no generated classes; names are constants here.
    dsl.insertInto(table("orders"), field("id"), field("customer"), field("amount"))
        .values(orderId, customer, amount)
        .execute();
    outbox.write(customer, topic, new OrderPlaced(orderId, customer, amount));
  }

  /** Many orders in one transaction: the relay finds them all at once. */
  @Transactional
  public void placeAll(int count, int customers, String topic) {
    for (int i = 0; i < count; i++) {
      place("o-" + i, "customer-" + (i % customers), i, topic);
    }
  }

  /** Writes both, then fails: the transaction rolls back, and the message with it. */
  @Transactional
  public void placeThenFail(String orderId, String customer, long amount) {
    place(orderId, customer, amount, "order.placed");
    throw new IllegalStateException("payment refused for " + orderId);
  }
}
