package dev.jooqoutbox.internal.repository;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.jooqoutbox.OutboxMessage;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jooq.CloseableDSLContext;
import org.jooq.impl.DSL;

/**
 * A claimer in its own JVM, for {@link ConcurrentClaimContract} on SQLite: claims from the same
 * database file until nothing is pending, marks each batch sent at once, and writes one line per
 * claimed message ({@code seq aggregate nanoTime}) to a file.
 *
 * <p>Arguments: JDBC URL, output file, batch size, topic, longest run. Prints {@code READY} once
 * connected and {@code CLAIMED} after its first batch.
 */
public final class ClaimerProcess {

  private ClaimerProcess() {}

  public static void main(String[] args) throws IOException {
    String url = args[0];
    Path output = Path.of(args[1]);
    int batchSize = Integer.parseInt(args[2]);
    Set<String> topics = Set.of(args[3]);
    int maxRun = Integer.parseInt(args[4]);
    try (CloseableDSLContext dsl = DSL.using(url);
        BufferedWriter out = Files.newBufferedWriter(output)) {
      JooqOutboxRepository repository = new JooqOutboxRepository(dsl);
      repository.pendingCount();
      System.out.println("READY");
      System.out.flush();
      int batch = 0;
      while (true) {
        String token = "process-" + ProcessHandle.current().pid() + "-" + batch++;
        List<OutboxMessage> claimed =
            repository.claim(
                topics, batchSize, maxRun, Duration.ofMinutes(5), token, Instant.now());
        if (claimed.isEmpty()) {
          if (repository.pendingCount() == 0) {
            break;
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
          continue;
        }
        // Recorded before the mark: the next message of an aggregate can be claimed only after it.
        long at = System.nanoTime();
        for (OutboxMessage m : claimed) {
          out.write(m.seq() + " " + m.aggregate() + " " + at + "\n");
        }
        repository.markSent(
            token, claimed.stream().map(OutboxMessage::seq).toList(), Instant.now());
        if (batch == 1) {
          System.out.println("CLAIMED");
          System.out.flush();
          // Waits while the test's threads take their first batch each, so that every claimer
          // has claimed once before they race, whoever then wins the races.
          String go = new BufferedReader(new InputStreamReader(System.in, UTF_8)).readLine();
          if (!"GO".equals(go)) {
            throw new IllegalStateException("expected GO on standard input, got " + go);
          }
        }
      }
    }
  }
}
