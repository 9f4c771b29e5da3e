package dev.jooqoutbox.bench;

import dev.jooqoutbox.bench.BenchDatabase.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The pure-SQL limit of figure 2: the repository's claim-and-mark cycle written by hand as plain
 * JDBC on one held connection, with no relay around it (no handler threads, no jOOQ, no message
 * objects). The statements are the ones the repository sends (as of the claim with runs and a
 * floor, ClaimQueries/MessageClaimer/ClaimFloor, and the PostgreSQL order of changeset 006), in the
 * same order:
 *
 * <ol>
 *   <li>at most once a second (longer when it is slow), the floor: the oldest pending seq, used one
 *       refresh later, as {@code ClaimFloor} does;
 *   <li>in the dialect's claim transaction (PostgreSQL autocommit, MariaDB READ COMMITTED, SQLite
 *       {@code BEGIN IMMEDIATE}): the runs of up to {@code maxRun} messages per aggregate among the
 *       oldest {@code max(4 x batch, 200)} pending rows from the floor on (window functions over a
 *       derived table read through the pending index, the head probe per aggregate);
 *   <li>the lease of those rows (re-checked as ready, skip-locked), and the release of any run rows
 *       after one it could not lease;
 *   <li>when that fell short of the batch: the skip scan over aggregate heads and the lease of the
 *       ready ones;
 *   <li>one token-guarded mark-sent of the whole batch, with the seqs as an {@code IN} list.
 * </ol>
 *
 * <p>It is the baseline the relay's throughput is divided by, never library code; when the
 * repository's claim changes, this must follow.
 */
final class PureSqlLoop implements AutoCloseable {

  /** The relay's default {@code maxRun}: the loop claims runs as long as the relay's. */
  static final int MAX_RUN = 10;

  private static final String PENDING = "o.sent_at IS NULL AND o.dead_at IS NULL";
  // ClaimQueries.ready: an outcome-unknown row is pending but never ready (the repository's rule
  // since bcc5fe0, which this loop had not followed until after d5b62b7).
  private static final String READY_RULE =
      "o.sent_at IS NULL AND o.dead_at IS NULL AND o.outcome_unknown_at IS NULL"
          + " AND o.available_at <= ? AND (o.locked_until IS NULL OR o.locked_until <= ?)"
          + " AND o.topic IN (?)";

  // The floor's refresh: the oldest pending seq, or one past the newest row.
  private static final String FLOOR =
      "SELECT COALESCE((SELECT o.seq FROM %s WHERE "
          + PENDING
          + " ORDER BY %s LIMIT 1), (SELECT max(a.seq) + 1 FROM outbox_message a))";

  // The first pass: the runs among the oldest pending rows from the floor on (ClaimQueries.runs).
  private static final String RUNS =
      "SELECT c.seq, c.aggregate FROM (SELECT r.seq, r.aggregate, r.first_seq FROM ("
          + "SELECT w.seq, w.aggregate,"
          + " row_number() OVER (PARTITION BY w.aggregate ORDER BY w.seq) AS run_pos,"
          + " min(w.ready) OVER (PARTITION BY w.aggregate ORDER BY w.seq) AS all_ready,"
          + " min(w.seq) OVER (PARTITION BY w.aggregate) AS first_seq FROM ("
          + "SELECT o.seq, o.aggregate, CASE WHEN ("
          + READY_RULE
          + ") THEN 1 ELSE 0 END AS ready FROM %s WHERE "
          + PENDING
          + " AND o.seq >= ? ORDER BY %s LIMIT ?) w) r"
          + " WHERE r.run_pos <= ? AND r.all_ready = 1 ORDER BY r.seq LIMIT ?) c"
          + " WHERE c.first_seq = (SELECT older.seq FROM outbox_message older"
          + " WHERE %s AND older.sent_at IS NULL"
          + " AND older.dead_at IS NULL ORDER BY %s LIMIT 1)"
          + " ORDER BY c.seq LIMIT ?";

  // Which of the given seqs are ready (ClaimQueries.readyAmong): the lease's candidates, with
  // "pending" written as ClaimQueries.pendingBySeq writes it for statements that go by seq.
  private static final String READY_AMONG =
      "SELECT o.seq FROM outbox_message o WHERE coalesce(o.sent_at, o.dead_at) IS NULL"
          + " AND o.outcome_unknown_at IS NULL"
          + " AND o.available_at <= ? AND (o.locked_until IS NULL OR o.locked_until <= ?)"
          + " AND o.topic IN (?) AND o.seq IN (%s) ORDER BY o.seq LIMIT ?";

  // The second pass, when the first came back short: the heads of up to max(10 x batch, 1000)
  // aggregates by a skip scan of the pending (aggregate, seq) index.
  private static final String HEADS_RECURSIVE =
      "WITH RECURSIVE agg(aggregate, depth) AS ("
          + " SELECT (SELECT min(f.aggregate) FROM outbox_message f"
          + " WHERE f.sent_at IS NULL AND f.dead_at IS NULL), 1"
          + " UNION ALL SELECT (SELECT min(n.aggregate) FROM outbox_message n"
          + " WHERE n.sent_at IS NULL AND n.dead_at IS NULL AND n.aggregate > agg.aggregate),"
          + " agg.depth + 1 FROM agg WHERE agg.aggregate IS NOT NULL AND agg.depth < ?)"
          + " SELECT %s FROM agg WHERE agg.aggregate IS NOT NULL";
  private static final String HEAD_BY_INDEX_ORDER =
      "(SELECT h.seq FROM outbox_message h WHERE h.aggregate >= agg.aggregate"
          + " AND h.sent_at IS NULL AND h.dead_at IS NULL ORDER BY h.aggregate, h.seq LIMIT 1)";
  private static final String HEAD_BY_MIN =
      "(SELECT min(h.seq) FROM outbox_message h WHERE h.aggregate = agg.aggregate"
          + " AND h.sent_at IS NULL AND h.dead_at IS NULL)";
  private static final String HEADS_GROUP_BY =
      "SELECT min(h.seq) FROM outbox_message h WHERE h.sent_at IS NULL AND h.dead_at IS NULL"
          + " GROUP BY h.aggregate LIMIT ?";

  private static final String COLUMNS =
      "seq, id, aggregate, topic, payload, headers, attempts, created_at";
  private static final String LEASE =
      "UPDATE outbox_message SET claim_token = ?, locked_until = ?, attempts = attempts + 1";
  private static final String RELEASE =
      "UPDATE outbox_message SET claim_token = NULL, locked_until = NULL, attempts = attempts - 1"
          + " WHERE seq IN (%s)";
  private static final String MARK =
      "UPDATE outbox_message SET claim_token = NULL, locked_until = NULL, sent_at = ?,"
          + " last_error = NULL WHERE seq IN (%s)";
  private static final String OWNED = " AND claim_token = ? AND coalesce(sent_at, dead_at) IS NULL";

  private final Kind kind;
  private final int batch;
  private final int maxRun;
  private final int window;
  private final int headBound;
  private final String pendingTable;
  private final String pendingOrder;
  private final String[] headProbe;
  private final Connection connection;
  private final long leaseMillis = 30_000;

  // ClaimFloor's state: the floor is the observation of one refresh earlier.
  private long floor = Long.MIN_VALUE;
  private long observed = Long.MIN_VALUE;
  private long refreshedAt;
  private long refreshPeriod = TimeUnit.SECONDS.toNanos(1);
  private boolean refreshed;

  PureSqlLoop(Kind kind, DataSource ds, int batch, int maxRun) throws SQLException {
    this.kind = kind;
    this.batch = batch;
    this.maxRun = maxRun;
    this.window = Math.max(4 * batch, 200);
    this.headBound = Math.max(10 * batch, 1000);
    // The dialect's pendingInSeqOrder: the hint that keeps the window on the pending index.
    this.pendingTable =
        switch (kind) {
          case POSTGRESQL -> "outbox_message o";
          case MARIADB -> "outbox_message o FORCE INDEX (ix_outbox_message_pending)";
          case SQLITE -> "outbox_message AS o INDEXED BY ix_outbox_message_pending";
        };
    // The dialect's pendingSeqOrder: on PostgreSQL an order only its (sent_at, dead_at, seq)
    // index gives, so the primary key is never read instead.
    this.pendingOrder = kind == Kind.POSTGRESQL ? "o.sent_at, o.dead_at, o.seq" : "o.seq";
    // The dialect's headProbe: on PostgreSQL the first entry at or after the aggregate in the
    // (aggregate, seq) index, as an equality let it walk the primary key.
    this.headProbe =
        kind == Kind.POSTGRESQL
            ? new String[] {"older.aggregate >= c.aggregate", "older.aggregate, older.seq"}
            : new String[] {"older.aggregate = c.aggregate", "older.seq"};
    this.connection = ds.getConnection();
    connection.setAutoCommit(true);
  }

  /** One claim of up to a batch, then one mark-sent; returns how many were marked. */
  int cycle() throws SQLException {
    String token = UUID.randomUUID().toString();
    long now = System.currentTimeMillis();
    long from = floor();
    List<Long> seqs = claim(token, now, from);
    if (seqs.isEmpty()) {
      return 0;
    }
    return markSent(token, seqs, System.currentTimeMillis());
  }

  /** ClaimFloor.current: refreshes at most every second (or 50x the refresh's own duration). */
  private long floor() throws SQLException {
    long now = System.nanoTime();
    if (!refreshed || now - refreshedAt >= refreshPeriod) {
      Long seen;
      try (PreparedStatement ps =
              connection.prepareStatement(String.format(FLOOR, pendingTable, pendingOrder));
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        long v = rs.getLong(1);
        seen = rs.wasNull() ? null : v;
      }
      long took = System.nanoTime() - now;
      floor = observed;
      observed = seen == null ? floor : seen;
      refreshedAt = now;
      refreshed = true;
      refreshPeriod = Math.max(TimeUnit.SECONDS.toNanos(1), 50 * took);
    }
    return floor;
  }

  /** Both passes in the dialect's claim transaction; the claimed seqs in seq order. */
  private List<Long> claim(String token, long now, long from) throws SQLException {
    begin();
    try {
      List<Long> claimed = leaseRuns(token, now, from);
      if (claimed.size() < batch) {
        List<Long> heads = heads();
        if (!heads.isEmpty()) {
          claimed.addAll(lease(token, now, heads, batch - claimed.size()));
        }
      }
      commit();
      Collections.sort(claimed);
      return claimed;
    } catch (SQLException | RuntimeException e) {
      rollback();
      throw e;
    }
  }

  private void begin() throws SQLException {
    switch (kind) {
      case POSTGRESQL -> {} // each lease is one statement in autocommit
      case MARIADB -> {
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
          s.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
        }
      }
      case SQLITE -> {
        try (Statement s = connection.createStatement()) {
          s.execute("BEGIN IMMEDIATE");
        }
      }
    }
  }

  private void commit() throws SQLException {
    switch (kind) {
      case POSTGRESQL -> {}
      case MARIADB -> {
        connection.commit();
        connection.setAutoCommit(true);
      }
      case SQLITE -> {
        try (Statement s = connection.createStatement()) {
          s.execute("COMMIT");
        }
      }
    }
  }

  private void rollback() throws SQLException {
    switch (kind) {
      case POSTGRESQL -> {}
      case MARIADB -> {
        connection.rollback();
        connection.setAutoCommit(true);
      }
      case SQLITE -> {
        try (Statement s = connection.createStatement()) {
          s.execute("ROLLBACK");
        }
      }
    }
  }

  /** The first pass: the runs, leased, each cut before a row it could not lease. */
  private List<Long> leaseRuns(String token, long now, long from) throws SQLException {
    List<Long> runSeqs = new ArrayList<>();
    List<String> runAggregates = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            String.format(RUNS, pendingTable, pendingOrder, headProbe[0], headProbe[1]))) {
      int i = bindReadyRule(ps, 1, now);
      ps.setLong(i++, from);
      ps.setInt(i++, window);
      ps.setInt(i++, maxRun);
      ps.setInt(i++, window);
      ps.setInt(i, batch);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          runSeqs.add(rs.getLong(1));
          runAggregates.add(rs.getString(2));
        }
      }
    }
    if (runSeqs.isEmpty()) {
      return new ArrayList<>();
    }
    Set<Long> leased = new HashSet<>(lease(token, now, runSeqs, runSeqs.size()));
    // RunCut: an aggregate keeps its rows before the first one not leased; the rest go back.
    List<Long> kept = new ArrayList<>();
    List<Long> cut = new ArrayList<>();
    Set<String> broken = new HashSet<>();
    for (int k = 0; k < runSeqs.size(); k++) {
      long seq = runSeqs.get(k);
      String aggregate = runAggregates.get(k);
      if (!leased.contains(seq)) {
        broken.add(aggregate);
      } else if (broken.contains(aggregate)) {
        cut.add(seq);
      } else {
        kept.add(seq);
      }
    }
    if (!cut.isEmpty()) {
      try (PreparedStatement ps =
          connection.prepareStatement(String.format(RELEASE, marks(cut.size())) + OWNED)) {
        int i = bindSeqs(ps, 1, cut);
        ps.setString(i, token);
        ps.executeUpdate();
      }
    }
    return kept;
  }

  /** The dialect's lease of the ready rows among {@code seqs}, at most {@code limit}. */
  private List<Long> lease(String token, long now, List<Long> seqs, int limit) throws SQLException {
    String candidates = String.format(READY_AMONG, marks(seqs.size()));
    if (kind == Kind.MARIADB) {
      List<Long> locked;
      try (PreparedStatement ps =
          connection.prepareStatement(candidates + " FOR UPDATE SKIP LOCKED")) {
        int i = bindReadyRule(ps, 1, now);
        i = bindSeqs(ps, i, seqs);
        ps.setInt(i, limit);
        locked = readSeqs(ps);
      }
      if (locked.isEmpty()) {
        return locked;
      }
      try (PreparedStatement ps =
          connection.prepareStatement(LEASE + " WHERE seq IN (" + marks(locked.size()) + ")")) {
        bindLease(ps, token, now);
        bindSeqs(ps, 3, locked);
        ps.executeUpdate();
      }
      try (PreparedStatement ps =
          connection.prepareStatement(
              "SELECT "
                  + COLUMNS
                  + " FROM outbox_message WHERE seq IN ("
                  + marks(locked.size())
                  + ")")) {
        bindSeqs(ps, 1, locked);
        return readMessages(ps);
      }
    }
    String lock = kind == Kind.POSTGRESQL ? " FOR UPDATE SKIP LOCKED" : "";
    try (PreparedStatement ps =
        connection.prepareStatement(
            LEASE + " WHERE seq IN (" + candidates + lock + ") RETURNING " + COLUMNS)) {
      bindLease(ps, token, now);
      int i = bindReadyRule(ps, 3, now);
      i = bindSeqs(ps, i, seqs);
      ps.setInt(i, limit);
      return readMessages(ps);
    }
  }

  /** The second pass's skip scan, in each dialect's form (as the repository's headSeqs). */
  private List<Long> heads() throws SQLException {
    String sql =
        switch (kind) {
          case POSTGRESQL -> String.format(HEADS_RECURSIVE, HEAD_BY_INDEX_ORDER);
          case SQLITE -> String.format(HEADS_RECURSIVE, HEAD_BY_MIN);
          case MARIADB -> HEADS_GROUP_BY;
        };
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      ps.setInt(1, headBound);
      List<Long> heads = readSeqs(ps);
      heads.removeIf(java.util.Objects::isNull);
      return heads;
    }
  }

  private void bindLease(PreparedStatement ps, String token, long now) throws SQLException {
    ps.setString(1, token);
    ps.setLong(2, now + leaseMillis);
  }

  private static int bindReadyRule(PreparedStatement ps, int from, long now) throws SQLException {
    ps.setLong(from, now);
    ps.setLong(from + 1, now);
    ps.setString(from + 2, BenchDatabase.TOPIC);
    return from + 3;
  }

  private static int bindSeqs(PreparedStatement ps, int from, List<Long> seqs) throws SQLException {
    for (int i = 0; i < seqs.size(); i++) {
      ps.setLong(from + i, seqs.get(i));
    }
    return from + seqs.size();
  }

  private static List<Long> readSeqs(PreparedStatement ps) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long seq = rs.getLong(1);
        seqs.add(rs.wasNull() ? null : seq);
      }
    }
    return seqs;
  }

  /** Reads every column, as a relay must to hand messages on; returns the seqs. */
  private static List<Long> readMessages(PreparedStatement ps) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    long checksum = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        seqs.add(rs.getLong(1));
        checksum +=
            rs.getString(2).length()
                + rs.getString(3).length()
                + rs.getString(4).length()
                + rs.getString(5).length()
                + (rs.getString(6) == null ? 0 : 1)
                + rs.getInt(7)
                + rs.getLong(8);
      }
    }
    if (checksum == Long.MIN_VALUE) {
      throw new IllegalStateException("unreachable; keeps the reads alive");
    }
    return seqs;
  }

  private int markSent(String token, List<Long> seqs, long now) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(String.format(MARK, marks(seqs.size())) + OWNED)) {
      ps.setLong(1, now);
      int i = bindSeqs(ps, 2, seqs);
      ps.setString(i, token);
      return ps.executeUpdate();
    }
  }

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
