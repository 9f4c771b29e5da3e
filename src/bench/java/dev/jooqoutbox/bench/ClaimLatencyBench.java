package dev.jooqoutbox.bench;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.bench.BenchDatabase.Kind;
import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Figure 3: the latency of one claim (batch 100) with 10,000 pending messages behind 0, 100,000 and
 * 1,000,000 sent rows awaiting purge.
 *
 * <p>Each backlog lives in its own schema (database, file), all loaded before measuring, and the
 * claims rotate over them, so the backlogs are measured side by side. Each claim is followed by a
 * release of what it took, so every claim sees the same pending rows.
 */
final class ClaimLatencyBench {

  static final int BATCH = 100;

  private record Backlog(int sent, BenchDatabase db, JooqOutboxRepository repository) {}

  static void run(String serverUrl, BenchOptions opts, Recorder r, Path plans) {
    List<Backlog> backlogs = new ArrayList<>();
    try {
      for (int sent : opts.sentRows()) {
        BenchDatabase db = BenchDatabase.create(serverUrl);
        DataSource pool = db.pool(2);
        backlogs.add(new Backlog(sent, db, new JooqOutboxRepository(db.dsl(pool))));
        long t0 = System.nanoTime();
        // Sent rows first, then the pending ones: the order a real outbox grows in.
        db.loadMessages(sent, 1000, true, "s");
        db.loadMessages(opts.pending(), 1000, false, "p");
        db.analyze("outbox_message");
        System.out.printf(
            "  loaded %,d sent + %,d pending rows in %.1f s%n",
            sent, opts.pending(), (System.nanoTime() - t0) / 1e9);
        if (db.kind() == Kind.POSTGRESQL) {
          Plans.explainClaim(pool, BATCH, plans.resolve("postgresql-claim-sent" + sent + ".txt"));
        }
      }
      for (Backlog b : backlogs) {
        for (int i = 0; i < 20; i++) {
          claimAndRelease(b);
        }
      }
      int n = opts.claimsPerRep();
      for (int rep = 0; rep < opts.reps(); rep++) {
        double[][] latencies = new double[backlogs.size()][n];
        for (int k = 0; k < n; k++) {
          for (int i = 0; i < backlogs.size(); i++) {
            int which = (i + k) % backlogs.size();
            latencies[which][k] = claimAndRelease(backlogs.get(which));
          }
        }
        for (int i = 0; i < backlogs.size(); i++) {
          int sent = backlogs.get(i).sent();
          r.add(
              "claim.sent" + sent + ".p50",
              "claim of " + BATCH + ", " + opts.pending() + " pending, " + sent + " sent rows: p50",
              "ms",
              Stats.percentile(latencies[i], 50));
          r.add(
              "claim.sent" + sent + ".p95",
              "claim of " + BATCH + ", " + opts.pending() + " pending, " + sent + " sent rows: p95",
              "ms",
              Stats.percentile(latencies[i], 95));
        }
      }
      int smallest = opts.sentRows().stream().mapToInt(Integer::intValue).min().orElse(0);
      int largest = opts.sentRows().stream().mapToInt(Integer::intValue).max().orElse(0);
      for (int sent : opts.sentRows()) {
        if (sent == smallest) {
          continue;
        }
        String id = "claim.sent" + sent + "_vs_sent" + smallest;
        String label = "claim p50 with " + sent + " sent rows / with " + smallest;
        if (sent == largest && sent >= 1_000_000 && smallest == 0) {
          r.ratio(
              id,
              label,
              "claim.sent" + sent + ".p50",
              "claim.sent" + smallest + ".p50",
              "<= 2",
              2,
              false);
        } else {
          r.ratio(id, label, "claim.sent" + sent + ".p50", "claim.sent" + smallest + ".p50");
        }
      }
      r.info("pending", opts.pending());
      r.info("claimsPerRepetition", n);
      r.info("batch", BATCH);
    } finally {
      for (Backlog b : backlogs) {
        b.db().close();
      }
    }
  }

  /** One timed claim, then an untimed release; returns the claim's milliseconds. */
  private static double claimAndRelease(Backlog b) {
    String token = UUID.randomUUID().toString();
    long t0 = System.nanoTime();
    List<OutboxMessage> claimed =
        b.repository()
            .claim(
                Set.of(BenchDatabase.TOPIC), BATCH, Duration.ofSeconds(30), token, Instant.now());
    double ms = (System.nanoTime() - t0) / 1e6;
    if (claimed.size() != BATCH) {
      throw new IllegalStateException(
          "claimed " + claimed.size() + " of " + BATCH + " with " + b.sent() + " sent rows");
    }
    b.repository().release(token, claimed.stream().map(OutboxMessage::seq).toList());
    return ms;
  }
}
