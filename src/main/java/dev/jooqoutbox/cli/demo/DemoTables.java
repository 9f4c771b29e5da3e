package dev.jooqoutbox.cli.demo;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.primaryKey;
import static org.jooq.impl.DSL.table;

import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The demo service's own business tables. They are not part of the outbox schema, so there are no
 * generated classes for them: the names are declared here once with {@code DSL.name} and every
 * statement is built from these typed fields (nothing is spliced from input).
 *
 * <p>The names carry an {@code outbox_demo_} prefix so that pointing the demo at a real database
 * cannot drop a table of the application's own called {@code orders}.
 */
final class DemoTables {

  private static final String ORDERS_NAME = "outbox_demo_order";
  private static final String LEDGER_NAME = "outbox_demo_ledger_entry";

  static final Table<Record> ORDERS = table(name(ORDERS_NAME));
  static final Field<Long> ORDER_ID = order("order_id", SQLDataType.BIGINT);
  static final Field<String> ORDER_CUSTOMER = order("customer_id", SQLDataType.VARCHAR(64));
  static final Field<Integer> ORDER_CUSTOMER_SEQ = order("customer_seq", SQLDataType.INTEGER);
  static final Field<Long> ORDER_AMOUNT = order("amount_cents", SQLDataType.BIGINT);
  static final Field<Long> ORDER_PLACED_AT = order("placed_at", SQLDataType.BIGINT);

  static final Table<Record> LEDGER = table(name(LEDGER_NAME));

  /** Assigned by the database at insert: the order in which the ledger booked its entries. */
  static final Field<Long> LEDGER_BOOKED_SEQ = ledger("booked_seq", SQLDataType.BIGINT);

  static final Field<Long> LEDGER_ORDER_ID = ledger("order_id", SQLDataType.BIGINT);
  static final Field<String> LEDGER_CUSTOMER = ledger("customer_id", SQLDataType.VARCHAR(64));
  static final Field<Integer> LEDGER_CUSTOMER_SEQ = ledger("customer_seq", SQLDataType.INTEGER);
  static final Field<Long> LEDGER_AMOUNT = ledger("amount_cents", SQLDataType.BIGINT);
  static final Field<String> LEDGER_MESSAGE_ID = ledger("message_id", SQLDataType.VARCHAR(64));
  static final Field<Long> LEDGER_BOOKED_AT = ledger("booked_at", SQLDataType.BIGINT);

  private DemoTables() {}

  private static <T> Field<T> order(String column, DataType<T> type) {
    return field(name(ORDERS_NAME, column), type);
  }

  private static <T> Field<T> ledger(String column, DataType<T> type) {
    return field(name(LEDGER_NAME, column), type);
  }

  /** Drops and creates both tables, so every run starts from empty ones. */
  static void recreate(DSLContext dsl) {
    dsl.dropTableIfExists(LEDGER).execute();
    dsl.dropTableIfExists(ORDERS).execute();
    dsl.createTable(ORDERS)
        .column(ORDER_ID, SQLDataType.BIGINT.nullable(false))
        .column(ORDER_CUSTOMER, SQLDataType.VARCHAR(64).nullable(false))
        .column(ORDER_CUSTOMER_SEQ, SQLDataType.INTEGER.nullable(false))
        .column(ORDER_AMOUNT, SQLDataType.BIGINT.nullable(false))
        .column(ORDER_PLACED_AT, SQLDataType.BIGINT.nullable(false))
        .constraints(primaryKey(ORDER_ID))
        .execute();
    // No unique key on order_id on purpose: a double booking must be countable by the
    // invariant check, not turned into a handler failure.
    dsl.createTable(LEDGER)
        .column(LEDGER_BOOKED_SEQ, SQLDataType.BIGINT.identity(true))
        .column(LEDGER_ORDER_ID, SQLDataType.BIGINT.nullable(false))
        .column(LEDGER_CUSTOMER, SQLDataType.VARCHAR(64).nullable(false))
        .column(LEDGER_CUSTOMER_SEQ, SQLDataType.INTEGER.nullable(false))
        .column(LEDGER_AMOUNT, SQLDataType.BIGINT.nullable(false))
        .column(LEDGER_MESSAGE_ID, SQLDataType.VARCHAR(64).nullable(false))
        .column(LEDGER_BOOKED_AT, SQLDataType.BIGINT.nullable(false))
        .constraints(primaryKey(LEDGER_BOOKED_SEQ))
        .execute();
  }
}
