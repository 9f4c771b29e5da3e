package com.example.start;

import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxSchema;
import dev.jooqoutbox.relay.OutboxRelay;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** From an empty database to a delivered message: java com.example.start.GettingStarted [URL]. */
public final class GettingStarted {

  public static void main(String[] args) throws Exception {
    // SQLite: WAL lets the relay read beside a writer, the busy timeout makes a writer wait.
    String url =
        args.length > 0
            ? args[0]
            : "jdbc:sqlite:getting-started.db?journal_mode=WAL&busy_timeout=30000";
    SQLDialect dialect =
        url.startsWith("jdbc:postgresql:")
            ? SQLDialect.POSTGRES
            : url.startsWith("jdbc:mariadb:") ? SQLDialect.MARIADB : SQLDialect.SQLITE;

    try (HikariDataSource dataSource = new HikariDataSource()) { // any DataSource will do
      dataSource.setJdbcUrl(url);

      // 1. The outbox's tables: jooq-outbox runs its own Liquibase changelog (applied changesets
      //    are skipped). An application with a changelog of its own includes ours instead.
      OutboxSchema.migrate(dataSource);

      DSLContext dsl = DSL.using(dataSource, dialect);
      Outbox outbox = Outbox.create(dsl);

      // 2. The relay hands each committed message to the handler of its topic, at least once, in
      //    order per aggregate. Its threads are daemons: they do not keep the JVM alive, so this
      //    main waits for the delivery itself.
      CountDownLatch delivered = new CountDownLatch(1);
      try (OutboxRelay relay =
          OutboxRelay.builder(dsl)
              .handler(
                  "greeting",
                  message -> {
                    System.out.println(
                        "delivered " + message.topic() + " " + message.payloadJson());
                    delivered.countDown();
                  })
              .build()) {
        relay.start();

        // 3. A write joins your transaction: the message commits or rolls back with your rows.
        dsl.transaction(
            tx -> outbox.write(tx.dsl(), "customer-1", "greeting", Map.of("text", "hello")));

        if (!delivered.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("nothing was delivered within 30 s");
        }
      } // closes the relay before the pool it uses
    }
  }
}
