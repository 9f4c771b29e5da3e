package dev.jooqoutbox.spring.app;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.spring.OutboxListener;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.DSLContext;
import org.springframework.stereotype.Component;

/** The application's consumers; the counts are what the tests look at. */
@Component
public class Listeners {

  /** Calls per message id, across application restarts in one test. */
  public static final Map<String, Integer> LEDGER_CALLS = new ConcurrentHashMap<>();

  public static final Map<String, Integer> SHIPMENT_CALLS = new ConcurrentHashMap<>();
  public static final AtomicBoolean REJECTING = new AtomicBoolean();

  private final DSLContext dsl;

  public Listeners(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** Exactly once: the ledger row and the inbox row commit in one Spring transaction. */
  @OutboxListener(value = "order.placed", inbox = "ledger")
  void book(OrderPlaced order, OutboxMessage message) {
    LEDGER_CALLS.merge(message.id(), 1, Integer::sum);
    dsl.insertInto(table("ledger"), field("order_id"), field("amount"))
        .values(order.orderId(), order.amount())
        .execute();
  }

  /** Slow, so that a shutdown finds some in flight. */
  @OutboxListener("order.shipped")
  void ship(OrderPlaced order, OutboxMessage message) throws InterruptedException {
    SHIPMENT_CALLS.merge(message.id(), 1, Integer::sum);
    Thread.sleep(50);
  }

  @OutboxListener("order.rejected")
  void reject(OutboxMessage message) {
    if (REJECTING.get()) {
      throw new IllegalStateException("downstream refuses " + message.id());
    }
  }
}
