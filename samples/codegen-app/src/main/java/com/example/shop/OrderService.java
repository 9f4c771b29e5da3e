package com.example.shop;

import static com.example.shop.db.Tables.ORDERS;

import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import org.jooq.DSLContext;

/**
 * Places orders: each order row and its {@code order.placed} message commit or roll back together.
 * Written against the shop's generated classes ({@code com.example.shop.db}) and jooq-outbox's
 * ({@code dev.jooqoutbox.schema}).
 */
public final class OrderService {

  /** The topic of the message written for each order. */
  public static final String ORDER_PLACED = "order.placed";

  private final DSLContext dsl;
  private final Outbox outbox;

  public OrderService(DSLContext dsl, Outbox outbox) {
    this.dsl = dsl;
    this.outbox = outbox;
  }

  /**
   * Inserts the order and writes its message, aggregate = customer, in one transaction, and returns
   * the message id. When either fails, neither is stored.
   */
  public String place(Order order) {
    return dsl.transactionResult(
        tx -> {
          tx.dsl()
              .insertInto(ORDERS)
              .set(ORDERS.ID, order.id())
              .set(ORDERS.CUSTOMER, order.customer())
              .set(ORDERS.CENTS, order.cents())
              .execute();
          return outbox.write(tx.dsl(), order.customer(), ORDER_PLACED, order);
        });
  }

  /**
   * Whether the message {@code messageId} of an order is delivered, as the outbox's operator API
   * tells (on every database, wherever it keeps the message).
   */
  public boolean delivered(String messageId) {
    return OutboxAdmin.create(dsl)
        .message(messageId)
        .map(m -> m.status() == MessageStatus.SENT)
        .orElse(false);
  }
}
