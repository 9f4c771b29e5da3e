package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import java.time.Instant;
import java.util.List;
import java.util.function.IntFunction;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSON;

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

  /** Inserts the rows {@code 0..count-1} that {@code row} describes, in that order. */
  public static void insert(DSLContext dsl, int count, IntFunction<Row> row) {
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
