package dev.jooqoutbox.faults;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.StoredMessages;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.LoggerFactory;

/**
 * What the fault tests share: a "ledger" consumer that books each message in its own transaction
 * guarded by the {@link Inbox}, the checks over its bookings, and quieter logs.
 */
final class Faults {

  /** The inbox consumer name of the ledger. */
  static final String LEDGER = "ledger";

  /** The topic the ledger handles. */
  static final String BOOKING_TOPIC = "fault.booking";

  /** One row per booking; {@code booking_no} is the order in which bookings happened. */
  static final Table<Record> BOOKING = table(name("fault_booking"));

  static final Field<Long> BOOKING_NO = field(name("booking_no"), SQLDataType.BIGINT);
  static final Field<String> MESSAGE_ID = field(name("message_id"), SQLDataType.VARCHAR(255));
  static final Field<String> AGGREGATE = field(name("aggregate"), SQLDataType.VARCHAR(255));
  static final Field<Long> SEQ = field(name("seq"), SQLDataType.BIGINT);
  static final Field<String> PROCESS = field(name("process"), SQLDataType.VARCHAR(128));

  /** One row per copy the inbox dropped. */
  static final Table<Record> DUPLICATE = table(name("fault_duplicate"));

  static final Field<Long> DUPLICATE_NO = field(name("duplicate_no"), SQLDataType.BIGINT);

  /** JSON value equality with numbers compared by value: jsonb gives 1e2 back as 100. */
  static final Comparator<JsonNode> NUMBERS_BY_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  private Faults() {}

  static void createLedgerTables(DSLContext dsl) {
    dsl.createTable(BOOKING)
        .column(BOOKING_NO, SQLDataType.BIGINT.identity(true))
        .column(MESSAGE_ID, SQLDataType.VARCHAR(255).nullable(false))
        .column(AGGREGATE, SQLDataType.VARCHAR(255).nullable(false))
        .column(SEQ, SQLDataType.BIGINT.nullable(false))
        .column(PROCESS, SQLDataType.VARCHAR(128).nullable(false))
        .constraints(DSL.primaryKey(BOOKING_NO))
        .execute();
    dsl.createTable(DUPLICATE)
        .column(DUPLICATE_NO, SQLDataType.BIGINT.identity(true))
        .column(MESSAGE_ID, SQLDataType.VARCHAR(255).nullable(false))
        .column(PROCESS, SQLDataType.VARCHAR(128).nullable(false))
        .constraints(DSL.primaryKey(DUPLICATE_NO))
        .execute();
  }

  /**
   * The ledger's handler body: in one new transaction, record the message with the inbox, then book
   * it, or count the copy when the inbox has seen it.
   */
  static void book(DSLContext dsl, Inbox inbox, OutboxMessage message, String process) {
    dsl.transaction(
        tx -> {
          DSLContext t = tx.dsl();
          if (inbox.seen(t, LEDGER, message.id())) {
            t.insertInto(DUPLICATE).set(MESSAGE_ID, message.id()).set(PROCESS, process).execute();
            return;
          }
          t.insertInto(BOOKING)
              .set(MESSAGE_ID, message.id())
              .set(AGGREGATE, message.aggregate())
              .set(SEQ, message.seq())
              .set(PROCESS, process)
              .execute();
        });
  }

  /** What the ledger holds after a drain. */
  record LedgerReport(int messages, int bookings, int duplicates, Map<String, Integer> byProcess) {}

  /**
   * Checks that every outbox message was booked exactly once and that, per aggregate, the bookings
   * follow {@code seq}; returns the counts.
   */
  static LedgerReport assertBookedExactlyOnceInOrder(DSLContext dsl) {
    Map<String, List<Long>> expected = new HashMap<>();
    Set<String> ids = new HashSet<>();
    for (var r : StoredMessages.of(dsl).keys()) {
      ids.add(r.id());
      expected.computeIfAbsent(r.aggregate(), k -> new ArrayList<>()).add(r.seq());
    }
    Map<String, List<Long>> booked = new LinkedHashMap<>();
    Map<String, Integer> timesBooked = new HashMap<>();
    Map<String, Integer> byProcess = new HashMap<>();
    var bookings =
        dsl.select(MESSAGE_ID, AGGREGATE, SEQ, PROCESS).from(BOOKING).orderBy(BOOKING_NO).fetch();
    for (var r : bookings) {
      timesBooked.merge(r.value1(), 1, Integer::sum);
      booked.computeIfAbsent(r.value2(), k -> new ArrayList<>()).add(r.value3());
      byProcess.merge(r.value4(), 1, Integer::sum);
    }
    List<String> bookedTwice =
        timesBooked.entrySet().stream()
            .filter(e -> e.getValue() > 1)
            .map(Map.Entry::getKey)
            .toList();
    assertThat(bookedTwice).as("messages booked more than once").isEmpty();
    assertThat(timesBooked.keySet()).as("booked message ids").isEqualTo(ids);
    // Exactly once and in seq order per aggregate: the booked seqs equal the written ones.
    for (var e : expected.entrySet()) {
      assertThat(booked.get(e.getKey()))
          .as("bookings of aggregate %s in booking order", e.getKey())
          .isEqualTo(e.getValue());
    }
    int duplicates = dsl.fetchCount(DUPLICATE);
    return new LedgerReport(ids.size(), bookings.size(), duplicates, byProcess);
  }

  /** Messages neither sent nor dead. */
  static long pending(DSLContext dsl) {
    if (dsl.dialect().family() == org.jooq.SQLDialect.POSTGRES) {
      // The event log's messages too, up to where the relays' shards are settled.
      return dev.jooqoutbox.OutboxAdmin.create(dsl).pendingCount();
    }
    return dsl.fetchCount(
        OUTBOX_MESSAGE, OUTBOX_MESSAGE.SENT_AT.isNull().and(OUTBOX_MESSAGE.DEAD_AT.isNull()));
  }

  /** Sleeps; an interrupt fails the test. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Sets the level of {@code loggers}; jOOQ's DEBUG logs every statement, too slow for these. */
  static void logLevel(Level level, String... loggers) {
    for (String name : loggers) {
      ((Logger) LoggerFactory.getLogger(name)).setLevel(level);
    }
  }

  /**
   * Quiets the chattiest loggers of a fault test (jOOQ logs every statement at DEBUG), whatever the
   * logback configuration on the class path says.
   */
  static void quietLogs() {
    logLevel(Level.WARN, "org.jooq", "com.zaxxer.hikari", "org.postgresql", "org.mariadb");
  }

  /** Collects what {@code logger} logs from now on; stop it with {@link #release}. */
  static ListAppender<ILoggingEvent> capture(Class<?> logger) {
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    ((Logger) LoggerFactory.getLogger(logger)).addAppender(appender);
    return appender;
  }

  static void release(Class<?> logger, ListAppender<ILoggingEvent> appender) {
    ((Logger) LoggerFactory.getLogger(logger)).detachAppender(appender);
    appender.stop();
  }

  /** The formatted messages {@code appender} collected, safe to read while others log. */
  static List<String> messages(ListAppender<ILoggingEvent> appender) {
    synchronized (appender) { // AppenderBase appends under the appender's own lock
      return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }
}
