package dev.jooqoutbox.nospring;

import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.relay.OutboxRelay;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.sqlite.SQLiteDataSource;

/**
 * An application of the library without Spring: run by {@link NoSpringClasspathTest} in a JVM whose
 * classpath has no Spring jar. Migrates a SQLite file, writes in a jOOQ transaction, relays, and
 * records the message with the inbox; prints {@code ok} and exits 0, or fails.
 */
public final class PlainApplication {

  private PlainApplication() {}

  public static void main(String[] args) throws Exception {
    try {
      Class.forName("org.springframework.core.SpringVersion");
      throw new IllegalStateException("Spring is on the classpath of this JVM");
    } catch (ClassNotFoundException expected) {
      // the point of this JVM
    }
    SQLiteDataSource dataSource = new SQLiteDataSource();
    dataSource.setUrl("jdbc:sqlite:" + args[0]);
    OutboxSchema.migrate(dataSource);
    DSLContext dsl = DSL.using(dataSource, SQLDialect.SQLITE);
    Outbox outbox = Outbox.create(dsl);
    dsl.transaction(tx -> outbox.write(tx.dsl(), "order-1", "order.placed", "{\"amount\":5}"));

    Inbox inbox = new Inbox();
    CountDownLatch handled = new CountDownLatch(1);
    try (OutboxRelay relay =
        OutboxRelay.builder(dsl)
            .handler(
                "order.placed",
                message -> {
                  if (inbox.runOnce(dsl, "ledger", message.id(), tx -> {})) {
                    handled.countDown();
                  }
                })
            .build()) {
      relay.start();
      if (!handled.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the relay delivered nothing in 30 s");
      }
    }
    System.out.println("ok");
  }
}
