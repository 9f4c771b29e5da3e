package com.example.shop;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.jooqoutbox.Outbox;
import org.jooq.DSLContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places an order and writes its message in one transaction. */
@Service
public class OrderService {

  private final DSLContext dsl;
  private final Outbox outbox;

  public OrderService(DSLContext dsl, Outbox outbox) {
    this.dsl = dsl;
    this.outbox = outbox;
  }

  /** The order row and its message commit together; a rejected order's message dead-letters. */
  @Transactional
  public String place(OrderPlaced order, boolean reject) {
    dsl.insertInto(table(name("orders")))
        .columns(
            field(name("id"), String.class),
            field(name("customer"), String.class),
            field(name("cents"), Long.class))
        .values(order.orderId(), order.customer(), order.cents())
        .execute();
    return outbox.write(order.customer(), reject ? "order.rejected" : "order.placed", order);
  }
}
