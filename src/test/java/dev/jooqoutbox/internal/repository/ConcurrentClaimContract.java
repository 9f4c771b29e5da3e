package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.testing.BulkMessages;
import dev.jooqoutbox.testing.DatabaseFixture;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several claimers, each on its own connection (and on SQLite also in a second process), drain a
 * backlog together: no message is claimed twice, none is lost, and per aggregate the claims come in
 * {@code seq} order.
 *
 * <p>Claim order is taken from {@link System#nanoTime()}, read after a claim returns and before its
 * mark: the next message of an aggregate cannot be claimed before that mark. On Linux nanoTime is
 * {@code CLOCK_MONOTONIC}, one clock for every process on the machine, so the second process's
 * times compare with ours.
 */
abstract class ConcurrentClaimContract extends DatabaseFixture {

  private static final int MESSAGES = 10_000;
  private static final int THREADS = 4;
  private static final int BATCH = 25;
  private static final String TOPIC = "load";
  private static final Duration LEASE = Duration.ofMinutes(5);

  private final boolean secondProcess;
  private final int maxRun;
  private final int aggregates;

  /** Claims of each aggregate's oldest message only, over 100 aggregates. */
  ConcurrentClaimContract(TestDatabase.Kind kind, boolean secondProcess) {
    this(kind, secondProcess, 1, 100);
  }

  /**
   * Claims of runs of up to {@code maxRun} messages over {@code aggregates} aggregates (few enough
   * that the oldest pending rows hold several of each, so that runs form).
   */
  ConcurrentClaimContract(
      TestDatabase.Kind kind, boolean secondProcess, int maxRun, int aggregates) {
    super(kind);
    this.secondProcess = secondProcess;
    this.maxRun = maxRun;
    this.aggregates = aggregates;
  }

  @Test
  void claimersDrainABacklogWithoutOverlapLossOrReordering(@TempDir Path dir) throws Exception {
    Map<Long, String> aggregateOfSeq = insertBacklog();
    ConcurrentLinkedQueue<Claim> claims = new ConcurrentLinkedQueue<>();

    Process process = null;
    Path processOutput = dir.resolve("claims.txt");
    if (secondProcess) {
      process = startClaimerProcess(processOutput);
    }
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      CountDownLatch firstClaims = new CountDownLatch(THREADS);
      List<Future<Integer>> claimers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        String name = "thread-" + t;
        claimers.add(pool.submit(claimer(name, start, firstClaims, claims)));
      }
      start.countDown();
      assertThat(firstClaims.await(60, TimeUnit.SECONDS)).as("every thread's first claim").isTrue();
      if (process != null) {
        // The process waits after its first batch until every thread has had one too.
        process.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
      }
      for (Future<Integer> claimer : claimers) {
        claimer.get(60, TimeUnit.SECONDS);
      }
      if (process != null) {
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("second process ended").isTrue();
        assertThat(process.exitValue()).isZero();
        claims.addAll(readProcessClaims(processOutput));
      }
    } finally {
      pool.shutdownNow();
      if (process != null) {
        process.destroyForcibly();
      }
    }

    List<Claim> all = new ArrayList<>(claims);
    // None claimed twice, none lost.
    assertThat(all).hasSize(MESSAGES);
    assertThat(all.stream().map(Claim::seq).collect(Collectors.toSet()))
        .isEqualTo(aggregateOfSeq.keySet());
    for (Claim claim : all) {
      assertThat(claim.aggregate()).isEqualTo(aggregateOfSeq.get(claim.seq()));
    }
    assertThat(
            db.dsl()
                .fetchCount(
                    OUTBOX_MESSAGE,
                    OUTBOX_MESSAGE.SENT_AT.isNull().or(OUTBOX_MESSAGE.ATTEMPTS.ne(1))))
        .as("rows not sent exactly once")
        .isZero();

    // Per aggregate, claims in seq order.
    Map<String, List<Claim>> byAggregate =
        all.stream().collect(Collectors.groupingBy(Claim::aggregate));
    assertThat(byAggregate).hasSize(aggregates);
    int longestRun = 0;
    for (Map.Entry<String, List<Claim>> entry : byAggregate.entrySet()) {
      List<Claim> inClaimOrder = new ArrayList<>(entry.getValue());
      // Within one batch (one nanoTime) the claim returned them in seq order.
      inClaimOrder.sort(Comparator.comparingLong(Claim::nanoTime).thenComparingLong(Claim::seq));
      List<Long> seqs = inClaimOrder.stream().map(Claim::seq).toList();
      // Every message of the aggregate was claimed once, so sorted claims mean that each batch
      // took the aggregate's next messages without a gap, after the previous batch was marked.
      assertThat(seqs).as("claim order of aggregate %s", entry.getKey()).isSorted();
      Map<Long, Long> perBatch =
          inClaimOrder.stream()
              .collect(Collectors.groupingBy(Claim::nanoTime, Collectors.counting()));
      long run = perBatch.values().stream().mapToLong(Long::longValue).max().orElse(0);
      assertThat(run)
          .as("most messages of aggregate %s in one batch", entry.getKey())
          .isLessThanOrEqualTo(maxRun);
      longestRun = Math.max(longestRun, (int) run);
    }
    if (maxRun > 1) {
      assertThat(longestRun).as("longest run claimed").isGreaterThan(1);
    }

    // Claimers really ran side by side: each claimed its first batch before any went on (see
    // claimer), so every one of them claimed, whoever won the races after that. SQLite's busy
    // handler promises no fairness between waiting connections:
    // left to race from the start, one claimer could take the whole backlog.
    Set<String> claimers = all.stream().map(Claim::claimer).collect(Collectors.toSet());
    Set<String> expected = new HashSet<>();
    for (int t = 0; t < THREADS; t++) {
      expected.add("thread-" + t);
    }
    if (secondProcess) {
      expected.add("process");
    }
    assertThat(claimers).as("claimers that claimed").isEqualTo(expected);
  }

  /**
   * A claimer thread. Once it has claimed and marked its first batch it waits until every thread
   * has had one (while the second process, which had its first before, waits too): a thread that
   * has one no longer competes, so each claims at least once whoever wins the races, and the rest
   * of the drain is a free race.
   */
  private Callable<Integer> claimer(
      String name,
      CountDownLatch start,
      CountDownLatch firstClaims,
      ConcurrentLinkedQueue<Claim> claims) {
    return () -> {
      JooqOutboxRepository repository = new JooqOutboxRepository(db.dsl());
      start.await();
      int batches = 0;
      boolean first = true;
      while (true) {
        if (first && batches > 0) {
          first = false;
          firstClaims.countDown();
          firstClaims.await();
        }
        String token = name + "-" + batches;
        List<OutboxMessage> batch =
            repository.claim(Set.of(TOPIC), BATCH, maxRun, LEASE, token, Instant.now());
        if (batch.isEmpty()) {
          if (repository.pendingCount() == 0) {
            return batches;
          }
          // Every ready head is leased by another claimer: it marks its batch in a moment.
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
          continue;
        }
        long at = System.nanoTime();
        for (OutboxMessage m : batch) {
          claims.add(new Claim(m.seq(), m.aggregate(), name, at));
        }
        int marked =
            repository.markSent(
                token, batch.stream().map(OutboxMessage::seq).toList(), Instant.now());
        assertThat(marked).isEqualTo(batch.size());
        batches++;
      }
    };
  }

  /** Inserts the backlog in a few multi-row statements; returns the aggregate of each seq. */
  private Map<Long, String> insertBacklog() {
    Random random = new Random(42);
    Instant created = Instant.now().minusSeconds(60);
    BulkMessages.insertRows(
        db.dsl(),
        MESSAGES,
        i ->
            new BulkMessages.Row(
                "m-" + i,
                "agg-" + random.nextInt(aggregates),
                TOPIC,
                "{\"i\":" + i + "}",
                created));
    Map<Long, String> aggregateOfSeq = new HashMap<>();
    db.dsl()
        .select(OUTBOX_MESSAGE.SEQ, OUTBOX_MESSAGE.AGGREGATE)
        .from(OUTBOX_MESSAGE)
        .forEach(r -> aggregateOfSeq.put(r.value1(), r.value2()));
    assertThat(aggregateOfSeq).hasSize(MESSAGES);
    assertThat(new HashSet<>(aggregateOfSeq.values())).hasSize(aggregates);
    return aggregateOfSeq;
  }

  private Process startClaimerProcess(Path output) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                ClaimerProcess.class.getName(),
                db.url(),
                output.toString(),
                Integer.toString(BATCH),
                TOPIC,
                Integer.toString(maxRun))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    // Blocks until the process has claimed its first batch: a cold JVM would otherwise often find
    // the backlog drained by the warm threads, and the test would prove nothing across processes.
    String line;
    do {
      line = stdout.readLine();
    } while (line != null && !line.equals("CLAIMED"));
    assertThat(line).as("CLAIMED line of the claimer process").isEqualTo("CLAIMED");
    return process;
  }

  private static List<Claim> readProcessClaims(Path output) throws IOException {
    List<Claim> claims = new ArrayList<>();
    for (String line : Files.readAllLines(output)) {
      String[] parts = line.split(" ");
      claims.add(
          new Claim(Long.parseLong(parts[0]), parts[1], "process", Long.parseLong(parts[2])));
    }
    return claims;
  }

  record Claim(long seq, String aggregate, String claimer, long nanoTime) {}
}
