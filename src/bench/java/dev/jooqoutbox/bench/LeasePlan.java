package dev.jooqoutbox.bench;

import java.sql.*;
import java.util.*;

/**
 * A diagnostic for docs/benchmarks-history.md (issue 14f), not a figure: on {@code n} pending rows
 * of which the first half were leased and marked sent without a vacuum since, prints the plans
 * (EXPLAIN ANALYZE, BUFFERS, rolled back) of the repository's lease and mark-sent statements for
 * the next 100 seqs and of the floor's refresh. {@code java ... LeasePlan <postgres url> <n>}.
 */
public final class LeasePlan {

  private LeasePlan() {}

  public static void main(String[] a) throws Exception {
    try (BenchDatabase db = BenchDatabase.create(a[0])) {
      int n = Integer.parseInt(a[1]);
      db.loadMessages(n, 1000, false, "p");
      db.analyze("outbox_message");
      // a drain's first half: lease (one version) then mark sent (another), no vacuum after
      db.execute(
          "UPDATE outbox_message SET claim_token = 'x', locked_until = 1, attempts = attempts + 1 WHERE seq <= "
              + n / 2);
      db.execute(
          "UPDATE outbox_message SET claim_token = NULL, locked_until = NULL, sent_at = 1 WHERE seq <= "
              + n / 2);
      try (Connection c = DriverManager.getConnection(db.url())) {
        c.setAutoCommit(false);
        long now = System.currentTimeMillis();
        StringBuilder in = new StringBuilder();
        // the runs a claim would lease: the next 100 pending seqs (one per aggregate)
        for (long s = n / 2 + 1; s <= n / 2 + 100; s++) {
          if (in.length() > 0) in.append(", ");
          in.append(s);
        }
        String lease =
            "EXPLAIN (ANALYZE, BUFFERS) UPDATE outbox_message SET claim_token = 'y', locked_until = "
                + (now + 30000)
                + ", attempts = attempts + 1 WHERE seq IN (SELECT o.seq FROM outbox_message o WHERE o.sent_at IS NULL AND o.dead_at IS NULL"
                + " AND o.available_at <= "
                + now
                + " AND (o.locked_until IS NULL OR o.locked_until <= "
                + now
                + ") AND o.topic IN ('bench.order')"
                + " AND o.seq IN ("
                + in
                + ") ORDER BY o.seq LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING seq";
        String mark =
            "EXPLAIN (ANALYZE, BUFFERS) UPDATE outbox_message SET claim_token = NULL, locked_until = NULL, sent_at = "
                + now
                + ", last_error = NULL WHERE seq IN ("
                + in
                + ") AND claim_token = 'y' AND sent_at IS NULL AND dead_at IS NULL";
        String floor =
            "EXPLAIN (ANALYZE, BUFFERS) SELECT COALESCE((SELECT o.seq FROM outbox_message o WHERE o.sent_at IS NULL AND o.dead_at IS NULL ORDER BY o.seq LIMIT 1), (SELECT max(a.seq) + 1 FROM outbox_message a))";
        for (String q : List.of(lease, mark, floor)) {
          System.out.println("== " + q.substring(0, Math.min(160, q.length())) + " ...");
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery(q)) {
            while (rs.next()) System.out.println(rs.getString(1));
          }
        }
        c.rollback();
      }
    }
    System.exit(0);
  }
}
