package dev.jooqoutbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean method, or an {@link dev.jooqoutbox.relay.OutboxHandler} / {@link
 * dev.jooqoutbox.relay.AsyncOutboxHandler} bean, the relay's handler of one topic.
 *
 * <p>On a method, the parameters may be the payload, read with the outbox's {@code ObjectMapper}
 * into the parameter's type, and the {@link dev.jooqoutbox.OutboxMessage}, in any order, each at
 * most once. Returning normally marks the message sent; throwing retries it with backoff.
 *
 * <pre>{@code
 * @OutboxListener(value = "order.placed", inbox = "ledger")
 * void onOrderPlaced(OrderPlaced order) { ... } // runs in one Spring transaction with the inbox row
 * }</pre>
 *
 * <p>On a bean class, or on the {@code @Bean} method that declares a handler bean, it gives that
 * handler its topic.
 *
 * <p>The application fails to start, naming the method or bean, when two handlers claim one topic,
 * a parameter cannot be read from JSON, the method cannot be called through the bean's proxy
 * (private or final on a proxied bean, or missing from the interfaces of a JDK proxy), or the inbox
 * is asked for without a transaction manager.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OutboxListener {

  /** The topic this handler receives. */
  String value();

  /**
   * An inbox consumer name: when set, each delivery runs in a new Spring transaction (or joins the
   * current one) that first records the message id for this consumer with {@link
   * dev.jooqoutbox.Inbox#seen}, and a copy already recorded is dropped without calling the method.
   * The method's own work on the application's {@code DSLContext} commits with that record. Empty
   * (the default): no inbox.
   */
  String inbox() default "";
}
