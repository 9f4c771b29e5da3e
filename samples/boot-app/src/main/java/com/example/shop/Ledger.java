package com.example.shop;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.PermanentFailureException;
import dev.jooqoutbox.spring.OutboxListener;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

/**
 * Books placed orders, once each through the inbox, and refuses rejected ones the first time (they
 * dead-letter; requeued, they are booked).
 */
@Component
public class Ledger {

  private final List<OrderPlaced> booked = new CopyOnWriteArrayList<>();
  private final Set<String> refused = ConcurrentHashMap.newKeySet();

  @OutboxListener(value = "order.placed", inbox = "ledger")
  void book(OrderPlaced order) {
    booked.add(order);
  }

  @OutboxListener("order.rejected")
  void reject(OrderPlaced order, OutboxMessage message) throws PermanentFailureException {
    if (refused.add(message.id())) {
      throw new PermanentFailureException("order " + order.orderId() + " refused");
    }
    booked.add(order);
  }

  /** What was booked, in the order it was. */
  public List<OrderPlaced> booked() {
    return List.copyOf(booked);
  }
}
