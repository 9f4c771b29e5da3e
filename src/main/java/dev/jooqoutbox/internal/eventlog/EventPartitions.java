package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;

import dev.jooqoutbox.internal.naming.OutboxNaming;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Name;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The partitions of outbox_event, by ranges of transaction ids: which there are, and new ones ahead
 * of the transaction ids in use. The catalogs are read and partitions created in plain SQL, as jOOQ
 * says neither; every name comes from the outbox's validated name ({@link OutboxNaming}) and every
 * bound is a number, never input.
 *
 * <p>Creating a partition locks the parent table against its readers and writers for a moment; with
 * a lock timeout of {@value #LOCK_TIMEOUT}, a writer waits at most that long, and the creation is
 * tried again at the next tick. Partitions are created {@value #AHEAD} ranges ahead, so such a
 * retry has a range's worth of transactions to succeed in; a row whose range is missing all the
 * same goes to the default partition, so a write never fails for lack of one.
 */
final class EventPartitions {

  /** A range partition: transaction ids {@code from} (included) to {@code to}. */
  record Range(String name, long from, long to) {}

  static final String LOCK_TIMEOUT = "50ms";
  static final int AHEAD = 2;

  /** The transaction ids of a partition, unless told otherwise. */
  static final long WIDTH = 1_000_000;

  private static final Pattern BOUNDS =
      Pattern.compile("FOR VALUES FROM \\((MINVALUE|'?(-?\\d+)'?)\\) TO \\('?(-?\\d+)'?\\)");

  private final DSLContext dsl;
  private final long width;

  EventPartitions(DSLContext dsl, long width) {
    this.dsl = dsl;
    this.width = width;
  }

  /** The transaction ids of each new partition. */
  long width() {
    return width;
  }

  /** The range partitions, by their first transaction id (the default one left out). */
  List<Range> ranges() {
    List<Range> ranges = new ArrayList<>();
    // Plain SQL: pg_inherits and pg_get_expr are catalogs jOOQ has no classes for. The parent is a
    // bind value, cast to regclass.
    for (var r :
        dsl.resultQuery(
                "select c.relname, pg_get_expr(c.relpartbound, c.oid) from pg_inherits i"
                    + " join pg_class c on c.oid = i.inhrelid where i.inhparent = cast(? as regclass)",
                dsl.render(OUTBOX_EVENT))
            .fetch()) {
      Matcher m = BOUNDS.matcher(r.get(1, String.class));
      if (m.find()) {
        long from = m.group(2) == null ? Long.MIN_VALUE : Long.parseLong(m.group(2));
        ranges.add(new Range(r.get(0, String.class), from, Long.parseLong(m.group(3))));
      }
    }
    ranges.sort(java.util.Comparator.comparingLong(Range::from));
    return ranges;
  }

  /**
   * Makes sure {@value #AHEAD} ranges of {@code width} follow the one that holds {@code txid}:
   * creates what is missing. Returns the end of the last range.
   */
  long ensureAhead(long txid) {
    List<Range> ranges = ranges();
    long end = ranges.isEmpty() ? txid : ranges.get(ranges.size() - 1).to();
    while (end < txid + AHEAD * width) {
      long from = Math.max(end, txid);
      create(from, from + width);
      end = from + width;
    }
    return end;
  }

  private void create(long from, long to) {
    Table<?> parent = OUTBOX_EVENT;
    Name table = partitionName(from);
    dsl.transaction(
        tx -> {
          tx.dsl()
              .select(
                  DSL.function(
                      "set_config",
                      String.class,
                      DSL.inline("lock_timeout"),
                      DSL.inline(LOCK_TIMEOUT),
                      DSL.inline(true)))
              .execute();
          // Plain SQL: jOOQ cannot say PARTITION OF. Names are rendered as identifiers, bounds are
          // numbers.
          tx.dsl()
              .execute(
                  "create table {0} partition of {1} for values from ({2}) to ({3})",
                  table, parent, DSL.inline(from), DSL.inline(to));
        });
  }

  /** The partition {@code r}, by its name, beside the parent. */
  Table<?> table(Range r) {
    String schema = OutboxNaming.schema(dsl.settings());
    return DSL.table(schema.isEmpty() ? DSL.name(r.name()) : DSL.name(schema, r.name()));
  }

  /** The name of the partition whose range starts at {@code from}, beside the parent. */
  Name partitionName(long from) {
    Name parent = DSL.name(OutboxNaming.outboxTable(dsl.settings()));
    String eventTable = parent.last().replaceFirst("outbox_message$", "outbox_event");
    String schema = OutboxNaming.schema(dsl.settings());
    String table = eventTable + "_p" + from;
    return schema.isEmpty() ? DSL.name(table) : DSL.name(schema, table);
  }
}
