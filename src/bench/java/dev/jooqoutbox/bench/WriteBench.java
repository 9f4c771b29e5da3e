package dev.jooqoutbox.bench;

import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.bench.BenchDatabase.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Figure 1 (write cost) and the write half of figure 5 (gruelbox): the same business transaction
 * with {@code Outbox.write}, without it, with a hand-written JDBC insert of the same outbox row,
 * and with gruelbox's {@code schedule(...)}; then NOTIFY on and off at 1, 4 and 16 writers.
 *
 * <p>Each repetition starts on emptied tables; within it the variants take turns in slices of one
 * second (see {@link #interleaved}), so drift on the shared machine spreads over all of them and a
 * ratio pairs measurements taken within the same seconds.
 */
final class WriteBench {

  static final int WRITERS = 4;

  enum Variant {
    BUSINESS("write.business", "business tx only (no outbox)"),
    OUTBOX("write.outbox", "business tx + Outbox.write (notifyOnWrite off)"),
    OUTBOX_NOTIFY(
        "write.outbox_notify",
        "business tx (plain JDBC transaction) + Outbox.write, notifyOnWrite on"
            + " (fallback: NOTIFY inside the transaction)"),
    OUTBOX_README(
        "write.outbox_readme",
        "README's setup: DSL.using(dataSource, dialect), Outbox.builder(dsl).build(),"
            + " business tx + Outbox.write in dsl.transaction"),
    OUTBOX_WAKEUP(
        "write.outbox_wakeup",
        "business tx + Outbox.write, notifyOnWrite on with Outbox.transactionListener()"
            + " (wake-up after commit: in process + coalesced NOTIFY)"),
    JDBC("write.jdbc", "business tx + hand-written JDBC INSERT of the same row"),
    GRUELBOX("write.gruelbox", "business tx + gruelbox schedule(...)");

    final String id;
    final String label;

    Variant(String id, String label) {
      this.id = id;
      this.label = label;
    }
  }

  private final BenchDatabase db;
  private final BenchOptions opts;
  private final DataSource pool;
  private final DSLContext dsl;
  private final Outbox quiet;
  private final Outbox notifying;
  private final DSLContext wakingDsl; // jOOQ transactions with the outbox's after-commit hook
  private final DSLContext readmeDsl; // README's setup: the outbox's build adds the hook
  private final Outbox readmeOutbox;
  private final String jdbcInsert;
  private ThreadLocalContextTransactionManager gruelboxTm;
  private TransactionOutbox gruelbox;

  WriteBench(BenchDatabase db, BenchOptions opts, int poolSize) {
    this.db = db;
    this.opts = opts;
    this.pool = db.pool(poolSize);
    this.dsl = db.dsl(pool);
    this.quiet = Outbox.builder(dsl).notifyOnWrite(false).build();
    // On a context of its own: building an outbox with notifications on adds the after-commit
    // listener to its context's configuration, and dsl's transactions stay as they were.
    this.notifying = Outbox.create(db.dsl(pool));
    this.wakingDsl = DSL.using(dsl.configuration().deriveAppending(Outbox.transactionListener()));
    this.readmeDsl = DSL.using(pool, db.dialect());
    this.readmeOutbox = Outbox.builder(readmeDsl).build();
    this.jdbcInsert = jdbcInsertSql(db.kind());
  }

  /** The hand-written insert: the statement a careful developer writes without the library. */
  private static String jdbcInsertSql(Kind kind) {
    String columns =
        "INSERT INTO outbox_message (id, aggregate, topic, payload, headers, created_at,"
            + " available_at, attempts) VALUES ";
    return switch (kind) {
      case POSTGRESQL ->
          columns + "(?, ?, ?, CAST(? AS jsonb), NULL, ?, ?, 0) ON CONFLICT (id) DO NOTHING";
      case MARIADB -> columns + "(?, ?, ?, ?, NULL, ?, ?, 0)";
      case SQLITE -> columns + "(?, ?, ?, ?, NULL, ?, ?, 0) ON CONFLICT (id) DO NOTHING";
    };
  }

  /** Figure 1 (and gruelbox's write throughput on PostgreSQL). */
  static void runWrite(BenchDatabase db, BenchOptions opts, Recorder r) {
    WriteBench bench = new WriteBench(db, opts, WRITERS + 2);
    List<Variant> variants = new ArrayList<>(List.of(Variant.BUSINESS, Variant.OUTBOX));
    if (db.kind() == Kind.POSTGRESQL) {
      variants.add(Variant.OUTBOX_WAKEUP);
    }
    variants.add(Variant.JDBC);
    if (db.kind() == Kind.POSTGRESQL) {
      variants.add(Variant.GRUELBOX);
      bench.startGruelbox();
    }
    long warmup = Math.min(1000, opts.writeMillis());
    for (Variant v : variants) {
      db.truncate();
      Workload.throughput(WRITERS, warmup, bench.tx(v));
    }
    for (int rep = 0; rep < opts.reps(); rep++) {
      db.truncate();
      double[] tps = interleaved(bench, variants, WRITERS, opts.writeMillis());
      for (int i = 0; i < variants.size(); i++) {
        Variant v = variants.get(i);
        r.add(v.id, v.label + ", " + WRITERS + " writers", "tx/s", tps[i]);
      }
    }
    r.ratio(
        "write.cost_vs_jdbc",
        "time per tx with Outbox.write / with the hand-written JDBC insert (notify off)",
        Variant.JDBC.id,
        Variant.OUTBOX.id,
        "<= 1.15",
        1.15,
        false);
    r.ratio(
        "write.rate_vs_business",
        "commit rate with Outbox.write (notify off) / without the outbox",
        Variant.OUTBOX.id,
        Variant.BUSINESS.id,
        ">= 0.9",
        0.9,
        true);
    r.ratio(
        "write.jdbc_rate_vs_business",
        "commit rate with the JDBC insert / without the outbox",
        Variant.JDBC.id,
        Variant.BUSINESS.id);
    if (db.kind() == Kind.POSTGRESQL) {
      r.ratio(
          "write.wakeup_rate_vs_business",
          "commit rate with Outbox.write (wake-up after commit) / without the outbox",
          Variant.OUTBOX_WAKEUP.id,
          Variant.BUSINESS.id);
      r.ratio(
          "write.wakeup_cost_vs_jdbc",
          "time per tx with Outbox.write (wake-up after commit) / with the JDBC insert",
          Variant.JDBC.id,
          Variant.OUTBOX_WAKEUP.id);
      r.ratio(
          "write.outbox_vs_gruelbox",
          "commit rate with Outbox.write (notify off) / with gruelbox schedule",
          Variant.OUTBOX.id,
          Variant.GRUELBOX.id);
      r.ratio(
          "write.outbox_wakeup_vs_gruelbox",
          "commit rate with Outbox.write (wake-up after commit) / with gruelbox schedule",
          Variant.OUTBOX_WAKEUP.id,
          Variant.GRUELBOX.id);
    }
    r.info("writers", WRITERS);
    r.info("windowSeconds", opts.writeSeconds());
    r.info("jdbcInsert", bench.jdbcInsert);
    r.info(
        "gruelbox",
        "PostgreSQL only: TransactionManager.fromDataSource(Hikari), DefaultPersistor for"
            + " Dialect.POSTGRESQL_9, a Submitter that does nothing so the write path is measured"
            + " alone (no immediate processing after commit), as our relay is not running either");
  }

  /**
   * Issue 14's wake-up cost (PostgreSQL), at 1, 4 and 16 writers: the writers' commit rate with the
   * wake-up on (notifyOnWrite, jOOQ transactions with {@code Outbox.transactionListener()}, so
   * relays are woken after the commit: in process, and by one coalesced NOTIFY from a connection of
   * the outbox's own) against off ({@code notifyOnWrite(false)}), and the fallback without the
   * listener (NOTIFY inside the transaction, what every write did before). Throughout, a stand-in
   * relay is registered for in-process wake-ups on this database (a counter: a real relay would
   * claim and deliver, which would measure its drain, not the writer's wake-up) and a LISTEN
   * connection receives the notifications, so both halves of the wake-up have a receiver.
   */
  static void runNotify(BenchDatabase db, BenchOptions opts, Recorder r) {
    int[] writerCounts = {1, 4, 16};
    WriteBench bench = new WriteBench(db, opts, 16 + 2);
    try (WakeupReceivers receivers = WakeupReceivers.start(db, bench.dsl)) {
      long warmup = Math.min(1000, opts.writeMillis());
      db.truncate();
      Workload.throughput(4, warmup, bench.tx(Variant.OUTBOX_WAKEUP));
      Workload.throughput(4, warmup, bench.tx(Variant.OUTBOX_NOTIFY));
      Workload.throughput(4, warmup, bench.tx(Variant.OUTBOX_README));
      List<Variant> variants =
          List.of(
              Variant.OUTBOX, Variant.OUTBOX_WAKEUP, Variant.OUTBOX_NOTIFY, Variant.OUTBOX_README);
      for (int rep = 0; rep < opts.reps(); rep++) {
        for (int writers : writerCounts) {
          db.truncate();
          double[] tps = interleaved(bench, variants, writers, opts.writeMillis());
          for (int i = 0; i < variants.size(); i++) {
            String key = notifyKey(variants.get(i));
            r.add(
                "notify." + key + ".w" + writers,
                variants.get(i).label + ", " + writers + " writers",
                "tx/s",
                tps[i]);
          }
        }
      }
      for (int writers : writerCounts) {
        r.ratio(
            "notify.wakeup_vs_off.w" + writers,
            "commit rate with the wake-up after commit / with notifyOnWrite off, "
                + writers
                + " writers",
            "notify.wakeup.w" + writers,
            "notify.off.w" + writers,
            writers == 16 ? ">= 0.9" : null,
            0.9,
            true);
        r.ratio(
            "notify.readme_vs_off.w" + writers,
            "commit rate with the README's setup / with notifyOnWrite off, " + writers + " writers",
            "notify.readme.w" + writers,
            "notify.off.w" + writers,
            writers == 16 ? ">= 0.9" : null,
            0.9,
            true);
        r.ratio(
            "notify.intx_vs_off.w" + writers,
            "commit rate with NOTIFY inside the transaction (fallback) / with notifyOnWrite off, "
                + writers
                + " writers",
            "notify.intx.w" + writers,
            "notify.off.w" + writers);
      }
      r.info("inProcessWakeups", receivers.inProcess());
      r.info("notificationsReceived", receivers.notifications());
    }
    r.info("windowSeconds", opts.writeSeconds());
    r.info(
        "receivers",
        "a Wakeups registration counting in-process wake-ups (stands in for a relay of the"
            + " writers' JVM) and a LISTEN connection on "
            + Outbox.NOTIFY_CHANNEL
            + " counting notifications (stands in for a relay elsewhere)");
  }

  private static String notifyKey(Variant v) {
    return switch (v) {
      case OUTBOX -> "off";
      case OUTBOX_WAKEUP -> "wakeup";
      case OUTBOX_NOTIFY -> "intx";
      case OUTBOX_README -> "readme";
      default -> throw new IllegalArgumentException(v.name());
    };
  }

  /**
   * One repetition: each variant runs for {@code millis} in all, in slices of at most one second
   * that take turns (in a rotating order), so the shared machine's drift falls on every variant
   * alike and a ratio compares measurements taken within the same seconds. Returns the committed
   * transactions per second of each variant.
   */
  private static double[] interleaved(
      WriteBench bench, List<Variant> variants, int writers, long millis) {
    long slice = Math.min(1000, millis);
    int slices = (int) Math.max(1, millis / slice);
    double[] committed = new double[variants.size()];
    for (int k = 0; k < slices; k++) {
      for (int j = 0; j < variants.size(); j++) {
        int i = (j + k) % variants.size();
        committed[i] += Workload.throughput(writers, slice, bench.tx(variants.get(i))) * slice;
      }
    }
    double[] tps = new double[variants.size()];
    for (int i = 0; i < tps.length; i++) {
      tps[i] = committed[i] / (slices * (double) slice);
    }
    return tps;
  }

  private void startGruelbox() {
    gruelboxTm = TransactionManager.fromDataSource(pool);
    GruelboxHandler handler = new GruelboxHandler();
    gruelbox =
        TransactionOutbox.builder()
            .transactionManager(gruelboxTm)
            .persistor(Persistor.forDialect(Dialect.POSTGRESQL_9))
            .instantiator(Instantiator.using(type -> handler))
            // Measure the write alone: nothing is handed to an executor after commit.
            .submitter((entry, localExecutor) -> {})
            .build();
  }

  Workload.Tx tx(Variant v) {
    return switch (v) {
      case BUSINESS -> i -> dsl.transaction(c -> Workload.insertOrder(c.dsl(), i));
      case OUTBOX -> outboxTx(dsl, quiet);
      case OUTBOX_NOTIFY -> jdbcOutboxTx(notifying);
      case OUTBOX_WAKEUP -> outboxTx(wakingDsl, notifying);
      case OUTBOX_README -> outboxTx(readmeDsl, readmeOutbox);
      case JDBC ->
          i ->
              dsl.transaction(
                  c -> {
                    Workload.insertOrder(c.dsl(), i);
                    c.dsl().connection(connection -> jdbcInsert(connection, i));
                  });
      case GRUELBOX ->
          i ->
              gruelboxTm.inTransaction(
                  () -> {
                    Connection connection =
                        gruelboxTm.requireTransactionReturns(tx -> tx.connection());
                    Workload.insertOrder(DSL.using(connection, db.dialect()), i);
                    gruelbox
                        .schedule(GruelboxHandler.class)
                        .orderPlaced(
                            Workload.aggregate(i),
                            i,
                            Workload.customer(i),
                            "12.50",
                            "benchmark payload");
                  });
    };
  }

  /**
   * The business transaction with one {@code outbox.write}, in a jOOQ transaction of {@code on}.
   */
  private static Workload.Tx outboxTx(DSLContext on, Outbox outbox) {
    return i ->
        on.transaction(
            c -> {
              Workload.insertOrder(c.dsl(), i);
              outbox.write(
                  c.dsl(), Workload.aggregate(i), BenchDatabase.TOPIC, Workload.OrderPlaced.of(i));
            });
  }

  /**
   * The business transaction with one {@code outbox.write}, in a plain JDBC transaction: nothing
   * tells the outbox of its commit, so the write falls back to a NOTIFY inside it on PostgreSQL.
   */
  private Workload.Tx jdbcOutboxTx(Outbox outbox) {
    return i -> {
      try (Connection connection = pool.getConnection()) {
        connection.setAutoCommit(false);
        try {
          DSLContext tx = DSL.using(connection, db.dialect());
          Workload.insertOrder(tx, i);
          outbox.write(tx, Workload.aggregate(i), BenchDatabase.TOPIC, Workload.OrderPlaced.of(i));
          connection.commit();
        } catch (RuntimeException | java.sql.SQLException e) {
          connection.rollback();
          throw e;
        } finally {
          connection.setAutoCommit(true);
        }
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private void jdbcInsert(Connection connection, long i) throws java.sql.SQLException {
    long now = System.currentTimeMillis();
    try (PreparedStatement ps = connection.prepareStatement(jdbcInsert)) {
      ps.setString(1, Workload.uuidV7());
      ps.setString(2, Workload.aggregate(i));
      ps.setString(3, BenchDatabase.TOPIC);
      ps.setString(4, Workload.handWrittenJson(i));
      ps.setLong(5, now);
      ps.setLong(6, now);
      ps.executeUpdate();
    }
  }

  static <T> List<T> rotate(List<T> list, int by) {
    List<T> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      out.add(list.get((i + by) % list.size()));
    }
    return out;
  }
}
