package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT_KEY;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.internal.eventlog.EventShards;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSON;
import org.jooq.SQLDialect;

/**
 * Pending messages written in multi-row inserts, with the values a write through {@code Outbox}
 * stores (no headers, attempt 0, available at creation): thousands of single-row writes would take
 * most of a test's time. A multi-row insert assigns {@code seq} in row order on every dialect.
 */
public final class BulkMessages {

  /** One row to insert; its payload is JSON text. */
  public record Row(String id, String aggregate, String topic, String payload, Instant createdAt) {}

  /** The columns a write fills, in the order {@link Row} and the inserts here give them. */
  public static final List<Field<?>> COLUMNS =
      List.of(
          OUTBOX_MESSAGE.ID,
          OUTBOX_MESSAGE.AGGREGATE,
          OUTBOX_MESSAGE.TOPIC,
          OUTBOX_MESSAGE.PAYLOAD,
          OUTBOX_MESSAGE.CREATED_AT,
          OUTBOX_MESSAGE.AVAILABLE_AT,
          OUTBOX_MESSAGE.ATTEMPTS);

  private static final int ROWS_PER_INSERT = 1000;

  private BulkMessages() {}

  /**
   * Writes the messages {@code 0..count-1} that {@code row} describes, in that order, where a write
   * through {@code Outbox} puts them: PostgreSQL's event log (one transaction per thousand, each
   * message's key first, as the writer does), rows of outbox_message elsewhere.
   */
  public static void insert(DSLContext dsl, int count, IntFunction<Row> row) {
    if (dsl.dialect().family() != SQLDialect.POSTGRES) {
      insertRows(dsl, count, row);
      return;
    }
    for (int from = 0; from < count; from += ROWS_PER_INSERT) {
      int start = from;
      dsl.transaction(
          tx -> {
            List<Row> rows = new ArrayList<>();
            var keys =
                tx.dsl()
                    .insertInto(
                        OUTBOX_EVENT_KEY,
                        OUTBOX_EVENT_KEY.ID,
                        OUTBOX_EVENT_KEY.SHARD,
                        OUTBOX_EVENT_KEY.CREATED_AT);
            for (int i = start; i < Math.min(count, start + ROWS_PER_INSERT); i++) {
              Row r = row.apply(i);
              rows.add(r);
              keys = keys.values(r.id(), EventShards.of(r.aggregate()), r.createdAt());
            }
            Map<String, long[]> drawn = new HashMap<>();
            for (var k :
                keys.returningResult(
                        OUTBOX_EVENT_KEY.ID, OUTBOX_EVENT_KEY.SEQ, OUTBOX_EVENT_KEY.TXID)
                    .fetch()) {
              drawn.put(k.value1(), new long[] {k.value2(), k.value3()});
            }
            var events =
                tx.dsl()
                    .insertInto(
                        OUTBOX_EVENT,
                        OUTBOX_EVENT.SEQ,
                        OUTBOX_EVENT.TXID,
                        OUTBOX_EVENT.SHARD,
                        OUTBOX_EVENT.ID,
                        OUTBOX_EVENT.AGGREGATE,
                        OUTBOX_EVENT.TOPIC,
                        OUTBOX_EVENT.PAYLOAD,
                        OUTBOX_EVENT.CREATED_AT,
                        OUTBOX_EVENT.AVAILABLE_AT);
            for (Row r : rows) {
              long[] k = drawn.get(r.id());
              events =
                  events.values(
                      k[0],
                      k[1],
                      EventShards.of(r.aggregate()),
                      r.id(),
                      r.aggregate(),
                      r.topic(),
                      JSON.json(r.payload()),
                      r.createdAt(),
                      r.createdAt());
            }
            events.execute();
          });
    }
  }

  /**
   * Inserts the rows {@code 0..count-1} that {@code row} describes into outbox_message, in that
   * order: the row-state store's rows on every database (on PostgreSQL, what the event log's copies
   * and the rows from before it are).
   */
  public static void insertRows(DSLContext dsl, int count, IntFunction<Row> row) {
    for (int from = 0; from < count; from += ROWS_PER_INSERT) {
      var insert = dsl.insertInto(OUTBOX_MESSAGE, COLUMNS);
      for (int i = from; i < Math.min(count, from + ROWS_PER_INSERT); i++) {
        Row r = row.apply(i);
        insert =
            insert.values(
                r.id(),
                r.aggregate(),
                r.topic(),
                JSON.json(r.payload()),
                r.createdAt(),
                r.createdAt(),
                0);
      }
      insert.execute();
    }
  }
}
