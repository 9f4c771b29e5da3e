package dev.jooqoutbox.internal.eventlog;

import static dev.jooqoutbox.schema.Tables.OUTBOX_EVENT;
import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.internal.repository.MessageRows;
import dev.jooqoutbox.schema.tables.OutboxEventTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Select;
import org.jooq.SelectField;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Reads the shards' next messages in one statement: per shard, the messages of transactions its
 * cursor does not see, in (txid, seq) order, at most a chunk; and the statement's own snapshot,
 * which sees exactly the transactions whose messages the statement could see.
 *
 * <p>Each shard is two index range scans of {@code (shard, txid, seq)}: the transactions the cursor
 * saw running that have ended since (few), then those that began after it. Neither reads a message
 * it returned before, however long another transaction runs. Every bound is a literal, never a bind
 * value: the numbers come from PostgreSQL's own snapshots, and with literals PostgreSQL plans each
 * read for its bounds, so the plan names only the partitions it reads. A generic plan would lock
 * every partition, and so wait behind the retention's lock on an old one.
 */
final class EventReader {

  /** One read: the statement's snapshot and each shard's messages, in (txid, seq) order. */
  record Read(Snapshot seen, Map<Short, List<LogEvent>> events) {}

  private final DSLContext dsl;
  private final MessageRows rows;

  EventReader(DSLContext dsl, MessageRows rows) {
    this.dsl = dsl;
    this.rows = rows;
  }

  /** Reads up to {@code limit} messages of each of {@code shards} from where each is. */
  Read read(Map<Short, Cursor> shards, int limit) {
    OutboxEventTable e = OUTBOX_EVENT.as("e");
    Field<String> snapshot =
        DSL.function("txid_current_snapshot", SQLDataType.OTHER).cast(SQLDataType.VARCHAR);
    Field<Boolean> behindParked = behindParked(e);
    Select<Record> chunks = chunks(shards, limit);
    Snapshot seen = null;
    Map<Short, List<LogEvent>> events = new HashMap<>();
    if (chunks == null) {
      seen = Snapshot.parse(dsl.select(snapshot).fetchSingle(snapshot));
      return new Read(seen, events);
    }
    // One statement, one snapshot: the one the rows come from. The left join returns it also when
    // no shard has anything new.
    var u = chunks.asTable("u");
    Field<String> seenField = snapshot.as("seen");
    Columns columns = Columns.of(u, e, behindParked);
    for (Record r :
        dsl.select(seenField)
            .select(u.fields())
            .from(DSL.selectOne().asTable("one"))
            .leftJoin(DSL.lateral(u))
            .on(DSL.trueCondition())
            .fetch()) {
      if (seen == null) {
        seen = Snapshot.parse(r.get(seenField)); // the statement's: the same on every row
      }
      if (r.get(columns.seq()) == null) {
        continue;
      }
      LogEvent event = event(r, columns);
      events.computeIfAbsent(event.shard, s -> new ArrayList<>()).add(event);
    }
    Comparator<LogEvent> order =
        Comparator.<LogEvent>comparingLong(ev -> ev.txid).thenComparingLong(LogEvent::seq);
    for (List<LogEvent> list : events.values()) {
      list.sort(order);
      if (list.size() > limit) {
        list.subList(limit, list.size()).clear(); // the second scan's, read again next time
      }
    }
    return new Read(seen, events);
  }

  /**
   * The statement that reads the shards' next chunks (without the snapshot), or null for no shard:
   * per shard one or two ordered index range scans, every bound a literal.
   */
  Select<Record> chunks(Map<Short, Cursor> shards, int limit) {
    OutboxEventTable e = OUTBOX_EVENT.as("e");
    SelectField<?>[] fields = {
      e.SEQ,
      e.TXID,
      e.SHARD,
      e.ID,
      e.AGGREGATE,
      e.TOPIC,
      e.PAYLOAD,
      e.HEADERS,
      e.CREATED_AT,
      e.AVAILABLE_AT,
      behindParked(e)
    };
    Select<Record> chunks = null;
    for (Entry<Short, Cursor> shard : shards.entrySet()) {
      Cursor c = shard.getValue();
      Condition common = e.SHARD.eq(DSL.inline(shard.getKey()));
      if (c.inBatch()) {
        common = common.and(e.TXID.lt(DSL.inline(c.upper().xmax())));
        for (long running : c.upper().xip()) {
          common = common.and(e.TXID.ne(DSL.inline(running)));
        }
        common =
            common.and(
                DSL.row(e.TXID, e.SEQ).gt(DSL.inline(c.afterTxid()), DSL.inline(c.afterSeq())));
      }
      long[] ended = c.inBatch() ? c.lower().endedBy(c.upper()) : c.lower().xip();
      if (ended.length > 0) {
        List<Field<Long>> ids = new ArrayList<>();
        for (long txid : ended) {
          ids.add(DSL.inline(txid));
        }
        chunks = union(chunks, chunk(e, fields, common.and(e.TXID.in(ids)), limit));
      }
      chunks =
          union(
              chunks, chunk(e, fields, common.and(e.TXID.ge(DSL.inline(c.lower().xmax()))), limit));
    }
    return chunks;
  }

  /** Whether the message's aggregate has a pending row in outbox_message: it follows that one. */
  private static Field<Boolean> behindParked(OutboxEventTable e) {
    return DSL.field(
            DSL.exists(
                DSL.selectOne()
                    .from(OUTBOX_MESSAGE)
                    .where(OUTBOX_MESSAGE.AGGREGATE.eq(e.AGGREGATE))
                    .and(OUTBOX_MESSAGE.SENT_AT.isNull())
                    .and(OUTBOX_MESSAGE.DEAD_AT.isNull())))
        .as("behind_parked");
  }

  private static Select<Record> union(Select<Record> all, Select<Record> next) {
    return all == null ? next : all.unionAll(next);
  }

  private Select<Record> chunk(
      OutboxEventTable e, SelectField<?>[] fields, Condition where, int limit) {
    return dsl.select(fields).from(e).where(where).orderBy(e.TXID, e.SEQ).limit(DSL.inline(limit));
  }

  /**
   * The read's columns, looked up by name in the union once a read rather than once a row: a lookup
   * through the aliased table costs more than the rest of turning a row into an event.
   */
  private record Columns(
      Field<Long> seq,
      Field<Long> txid,
      Field<Short> shard,
      Field<String> id,
      Field<String> aggregate,
      Field<String> topic,
      Field<org.jooq.JSON> payload,
      Field<org.jooq.JSON> headers,
      Field<java.time.Instant> createdAt,
      Field<java.time.Instant> availableAt,
      Field<Boolean> behindParked) {

    static Columns of(org.jooq.Table<?> u, OutboxEventTable e, Field<Boolean> behindParked) {
      return new Columns(
          u.field(e.SEQ),
          u.field(e.TXID),
          u.field(e.SHARD),
          u.field(e.ID),
          u.field(e.AGGREGATE),
          u.field(e.TOPIC),
          u.field(e.PAYLOAD),
          u.field(e.HEADERS),
          u.field(e.CREATED_AT),
          u.field(e.AVAILABLE_AT),
          u.field(behindParked));
    }
  }

  private LogEvent event(Record r, Columns c) {
    String unreadable = null;
    Map<String, String> headers;
    try {
      headers = rows.readHeaders(r.get(c.headers()));
    } catch (OutboxException ex) {
      headers = Map.of();
      unreadable = ex.getMessage();
    }
    OutboxMessage message =
        new OutboxMessage(
            r.get(c.seq()),
            r.get(c.id()),
            r.get(c.aggregate()),
            r.get(c.topic()),
            r.get(c.payload()).data(),
            headers,
            1,
            r.get(c.createdAt()),
            rows.mapper());
    LogEvent event =
        new LogEvent(
            message,
            r.get(c.txid()),
            r.get(c.shard()),
            r.get(c.availableAt()),
            Boolean.TRUE.equals(r.get(c.behindParked())));
    event.unreadable = unreadable;
    return event;
  }
}
