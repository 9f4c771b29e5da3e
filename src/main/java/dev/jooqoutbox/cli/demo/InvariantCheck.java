package dev.jooqoutbox.cli.demo;

import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_AMOUNT;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_BOOKED_SEQ;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_CUSTOMER;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_CUSTOMER_SEQ;
import static dev.jooqoutbox.cli.demo.DemoTables.LEDGER_ORDER_ID;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDERS;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_AMOUNT;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_CUSTOMER;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_CUSTOMER_SEQ;
import static dev.jooqoutbox.cli.demo.DemoTables.ORDER_ID;
import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.selectOne;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import java.util.List;
import java.util.Locale;
import org.jooq.DSLContext;
import org.jooq.Record2;

/**
 * The demo's verdict, read from the database after the run: what the tables hold, not what the
 * demo's threads believe they did.
 */
final class InvariantCheck {

  /** One checked promise and what was found. */
  record Result(String name, boolean passed, String detail) {}

  private InvariantCheck() {}

  static List<Result> run(DSLContext dsl, long ordersPlaced) {
    return List.of(bookedExactlyOnce(dsl, ordersPlaced), bookedInPlacementOrder(dsl), drained(dsl));
  }

  /**
   * Every placed order has exactly one ledger entry, with the order's customer, sequence and
   * amount, and the inbox recorded each booked message once.
   */
  static Result bookedExactlyOnce(DSLContext dsl, long ordersPlaced) {
    int orders = dsl.fetchCount(ORDERS);
    int entries = dsl.fetchCount(LEDGER);
    int missing =
        dsl.fetchCount(
            ORDERS, notExists(selectOne().from(LEDGER).where(LEDGER_ORDER_ID.eq(ORDER_ID))));
    int duplicated =
        dsl.fetchCount(
            dsl.select(LEDGER_ORDER_ID)
                .from(LEDGER)
                .groupBy(LEDGER_ORDER_ID)
                .having(count().gt(1)));
    int mismatched =
        dsl.fetchCount(
            dsl.select(LEDGER_ORDER_ID)
                .from(LEDGER)
                .join(ORDERS)
                .on(ORDER_ID.eq(LEDGER_ORDER_ID))
                .where(
                    ORDER_CUSTOMER
                        .ne(LEDGER_CUSTOMER)
                        .or(ORDER_CUSTOMER_SEQ.ne(LEDGER_CUSTOMER_SEQ))
                        .or(ORDER_AMOUNT.ne(LEDGER_AMOUNT))));
    int inboxRecords =
        dsl.fetchCount(INBOX_MESSAGE, INBOX_MESSAGE.CONSUMER.eq(LedgerConsumer.CONSUMER));
    boolean passed =
        orders == ordersPlaced
            && entries == orders
            && missing == 0
            && duplicated == 0
            && mismatched == 0
            && inboxRecords == entries;
    return new Result(
        "every order booked exactly once",
        passed,
        String.format(
            Locale.ROOT,
            "%,d orders, %,d ledger entries, %,d missing, %,d booked twice or more, %,d not as"
                + " placed, %,d inbox records",
            orders,
            entries,
            missing,
            duplicated,
            mismatched,
            inboxRecords));
  }

  /**
   * For every customer, the ledger's booking order ({@code booked_seq}, assigned by the database)
   * follows the placement order ({@code customer_seq}).
   */
  static Result bookedInPlacementOrder(DSLContext dsl) {
    int customers = 0;
    int outOfOrder = 0;
    String current = null;
    int previousSeq = 0;
    boolean currentBroken = false;
    // Streamed in booking order per customer: memory stays flat for any number of orders.
    try (var rows =
        dsl.select(LEDGER_CUSTOMER, LEDGER_CUSTOMER_SEQ)
            .from(LEDGER)
            .orderBy(LEDGER_CUSTOMER, LEDGER_BOOKED_SEQ)
            .fetchSize(1000)
            .fetchLazy()) {
      for (Record2<String, Integer> row : rows) {
        String customer = row.value1();
        int seq = row.value2();
        if (!customer.equals(current)) {
          customers++;
          current = customer;
          currentBroken = false;
        } else if (seq <= previousSeq && !currentBroken) {
          outOfOrder++;
          currentBroken = true;
        }
        previousSeq = seq;
      }
    }
    return new Result(
        "per-customer booking order = placement order",
        outOfOrder == 0,
        String.format(
            Locale.ROOT, "%,d customers, %,d booked out of order", customers, outOfOrder));
  }

  /** Nothing is left for a relay: no pending message, no dead letter. */
  static Result drained(DSLContext dsl) {
    OutboxStats stats = OutboxAdmin.create(dsl).stats();
    return new Result(
        "nothing left pending",
        stats.pending() == 0 && stats.dead() == 0,
        String.format(
            Locale.ROOT,
            "%,d pending, %,d dead, %,d sent",
            stats.pending(),
            stats.dead(),
            stats.sentAwaitingPurge()));
  }
}
