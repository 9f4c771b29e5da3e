package dev.jooqoutbox.bench;

import dev.jooqoutbox.bench.BenchDatabase.Kind;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The pure-SQL limit of figure 2: the relay's claim-and-mark cycle written by hand as plain JDBC on
 * one held connection, with no relay around it (no handler threads, no jOOQ, no message objects).
 * The statements are the repository's (as of commit 73724f9): the same two claim passes (the oldest
 * pending message of its aggregate among the oldest pending rows in {@code seq} order; when that
 * falls short, the heads found by a skip scan over the aggregates), the same readiness rule, the
 * same per-dialect locking, and one mark-sent statement per batch guarded by the claim token. It is
 * the baseline the relay's throughput is divided by, never library code; when the repository's
 * claim changes, this must follow.
 */
final class PureSqlLoop implements AutoCloseable {

  // The repository's first pass: the oldest pending message of its aggregate (a correlated probe
  // of the (aggregate, seq) pending index), among the oldest max(4 x batch, 200) pending rows only.
  private static final String READY =
      " FROM outbox_message o WHERE o.sent_at IS NULL AND o.dead_at IS NULL"
          + " AND o.available_at <= ? AND (o.locked_until IS NULL OR o.locked_until <= ?)"
          + " AND o.topic = ?"
          + " AND o.seq < COALESCE((SELECT w.seq FROM outbox_message w"
          + " WHERE w.sent_at IS NULL AND w.dead_at IS NULL ORDER BY w.seq LIMIT 1 OFFSET ?),"
          + " 9223372036854775807)"
          + " AND o.seq = (SELECT older.seq FROM outbox_message older"
          + " WHERE older.aggregate = o.aggregate"
          + " AND older.sent_at IS NULL AND older.dead_at IS NULL ORDER BY older.seq LIMIT 1)"
          + " ORDER BY o.seq LIMIT ?";

  // The second pass, when the first came back short: the heads of up to max(10 x batch, 1000)
  // aggregates by a skip scan of the pending (aggregate, seq) index, then the ready ones of them.
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
  private static final String READY_AMONG =
      " FROM outbox_message o WHERE o.sent_at IS NULL AND o.dead_at IS NULL"
          + " AND o.available_at <= ? AND (o.locked_until IS NULL OR o.locked_until <= ?)"
          + " AND o.topic = ? AND o.seq IN (%s) ORDER BY o.seq LIMIT ?";

  private static final String COLUMNS =
      "seq, id, aggregate, topic, payload, headers, attempts, created_at";
  private static final String LEASE =
      "UPDATE outbox_message SET claim_token = ?, locked_until = ?, attempts = attempts + 1";
  private static final String MARK =
      "UPDATE outbox_message SET sent_at = ?, claim_token = NULL, locked_until = NULL,"
          + " last_error = NULL WHERE ";
  private static final String OWNED =
      " AND claim_token = ? AND sent_at IS NULL AND dead_at IS NULL";

  private final Kind kind;
  private final int batch;
  private final int window;
  private final int headBound;
  private final Connection connection;
  private final long leaseMillis = 30_000;

  PureSqlLoop(Kind kind, DataSource ds, int batch) throws SQLException {
    this.kind = kind;
    this.batch = batch;
    this.window = Math.max(4 * batch, 200);
    this.headBound = Math.max(10 * batch, 1000);
    this.connection = ds.getConnection();
    if (kind == Kind.MARIADB) {
      connection.setAutoCommit(false);
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    } else {
      connection.setAutoCommit(true);
    }
  }

  /** One claim of up to a batch, then one mark-sent; returns how many were marked. */
  int cycle() throws SQLException {
    String token = UUID.randomUUID().toString();
    long now = System.currentTimeMillis();
    List<Long> seqs =
        switch (kind) {
          case POSTGRESQL -> claimPostgres(token, now);
          case MARIADB -> claimMariaDb(token, now);
          case SQLITE -> claimSqlite(token, now);
        };
    if (seqs.isEmpty()) {
      return 0;
    }
    return markSent(token, seqs, System.currentTimeMillis());
  }

  private List<Long> claimPostgres(String token, long now) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            LEASE
                + " WHERE seq IN (SELECT o.seq"
                + READY
                + " FOR UPDATE SKIP LOCKED) RETURNING "
                + COLUMNS)) {
      bindLease(ps, token, now);
      bindReady(ps, 3, now, batch);
      seqs.addAll(readMessages(ps));
    }
    if (seqs.size() < batch) {
      List<Long> heads = heads();
      if (!heads.isEmpty()) {
        try (PreparedStatement ps =
            connection.prepareStatement(
                LEASE
                    + " WHERE seq IN (SELECT o.seq"
                    + String.format(READY_AMONG, marks(heads.size()))
                    + " FOR UPDATE SKIP LOCKED) RETURNING "
                    + COLUMNS)) {
          bindLease(ps, token, now);
          bindAmong(ps, 3, now, heads, batch - seqs.size());
          seqs.addAll(readMessages(ps));
        }
      }
    }
    return seqs;
  }

  private List<Long> claimSqlite(String token, long now) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      try {
        List<Long> seqs = new ArrayList<>();
        try (PreparedStatement ps =
            connection.prepareStatement(
                LEASE + " WHERE seq IN (SELECT o.seq" + READY + ") RETURNING " + COLUMNS)) {
          bindLease(ps, token, now);
          bindReady(ps, 3, now, batch);
          seqs.addAll(readMessages(ps));
        }
        if (seqs.size() < batch) {
          List<Long> heads = heads();
          if (!heads.isEmpty()) {
            try (PreparedStatement ps =
                connection.prepareStatement(
                    LEASE
                        + " WHERE seq IN (SELECT o.seq"
                        + String.format(READY_AMONG, marks(heads.size()))
                        + ") RETURNING "
                        + COLUMNS)) {
              bindLease(ps, token, now);
              bindAmong(ps, 3, now, heads, batch - seqs.size());
              seqs.addAll(readMessages(ps));
            }
          }
        }
        s.execute("COMMIT");
        return seqs;
      } catch (SQLException | RuntimeException e) {
        s.execute("ROLLBACK");
        throw e;
      }
    }
  }

  private List<Long> claimMariaDb(String token, long now) throws SQLException {
    try {
      List<Long> seqs = new ArrayList<>();
      try (PreparedStatement ps =
          connection.prepareStatement("SELECT o.seq" + READY + " FOR UPDATE SKIP LOCKED")) {
        bindReady(ps, 1, now, batch);
        seqs.addAll(readSeqs(ps));
      }
      lease(token, now, seqs);
      if (seqs.size() < batch) {
        List<Long> heads = heads();
        if (!heads.isEmpty()) {
          List<Long> more;
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT o.seq"
                      + String.format(READY_AMONG, marks(heads.size()))
                      + " FOR UPDATE SKIP LOCKED")) {
            bindAmong(ps, 1, now, heads, batch - seqs.size());
            more = readSeqs(ps);
          }
          lease(token, now, more);
          seqs.addAll(more);
        }
      }
      if (seqs.isEmpty()) {
        connection.commit();
        return seqs;
      }
      List<Long> read;
      try (PreparedStatement ps =
          connection.prepareStatement(
              "SELECT "
                  + COLUMNS
                  + " FROM outbox_message WHERE seq IN ("
                  + marks(seqs.size())
                  + ")")) {
        for (int i = 0; i < seqs.size(); i++) {
          ps.setLong(1 + i, seqs.get(i));
        }
        read = readMessages(ps);
      }
      connection.commit();
      return read;
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    }
  }

  private void lease(String token, long now, List<Long> seqs) throws SQLException {
    if (seqs.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        connection.prepareStatement(LEASE + " WHERE seq IN (" + marks(seqs.size()) + ")")) {
      bindLease(ps, token, now);
      for (int i = 0; i < seqs.size(); i++) {
        ps.setLong(3 + i, seqs.get(i));
      }
      ps.executeUpdate();
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

  private void bindReady(PreparedStatement ps, int from, long now, int limit) throws SQLException {
    ps.setLong(from, now);
    ps.setLong(from + 1, now);
    ps.setString(from + 2, BenchDatabase.TOPIC);
    ps.setInt(from + 3, window);
    ps.setInt(from + 4, limit);
  }

  private static void bindAmong(
      PreparedStatement ps, int from, long now, List<Long> heads, int limit) throws SQLException {
    ps.setLong(from, now);
    ps.setLong(from + 1, now);
    ps.setString(from + 2, BenchDatabase.TOPIC);
    for (int i = 0; i < heads.size(); i++) {
      ps.setLong(from + 3 + i, heads.get(i));
    }
    ps.setInt(from + 3 + heads.size(), limit);
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

  /** Reads every column, as a relay must to hand messages on; returns the seqs in order. */
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
    Collections.sort(seqs);
    return seqs;
  }

  private int markSent(String token, List<Long> seqs, long now) throws SQLException {
    int marked;
    if (kind == Kind.POSTGRESQL) {
      try (PreparedStatement ps = connection.prepareStatement(MARK + "seq = ANY (?)" + OWNED)) {
        Array array = connection.createArrayOf("bigint", seqs.toArray());
        ps.setLong(1, now);
        ps.setArray(2, array);
        ps.setString(3, token);
        marked = ps.executeUpdate();
        array.free();
      }
    } else {
      try (PreparedStatement ps =
          connection.prepareStatement(MARK + "seq IN (" + marks(seqs.size()) + ")" + OWNED)) {
        ps.setLong(1, now);
        for (int i = 0; i < seqs.size(); i++) {
          ps.setLong(2 + i, seqs.get(i));
        }
        ps.setString(2 + seqs.size(), token);
        marked = ps.executeUpdate();
      }
      if (kind == Kind.MARIADB) {
        connection.commit();
      }
    }
    return marked;
  }

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
