package dev.jooqoutbox.internal.repository;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jooq.exception.DataAccessException;
import org.jooq.exception.SQLStateClass;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a claim or settle again when the database chose it as a deadlock victim (SQLSTATE class 40).
 * MariaDB picks victims among concurrent claims and settles of neighbouring rows even with SKIP
 * LOCKED; the victim's work was rolled back whole, and every statement retried here is a
 * compare-and-swap on the claim token, so running it again is safe.
 */
final class Deadlocks {

  private static final Logger log = LoggerFactory.getLogger(JooqOutboxRepository.class);
  private static final int ATTEMPTS = 5;

  private Deadlocks() {}

  static <T> T retry(Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (DataAccessException e) {
        if (!isVictim(e)) {
          throw e;
        }
        pauseBeforeRetry(e, attempt, ATTEMPTS);
      }
    }
  }

  /** Whether {@code e} says the database rolled back the transaction (deadlock victim and kin). */
  static boolean isVictim(DataAccessException e) {
    return e.sqlStateClass() == SQLStateClass.C40_TRANSACTION_ROLLBACK;
  }

  /**
   * Waits a short random time before attempt {@code attempt + 1}; throws {@code victim} instead
   * when {@code attempts} are used up or the thread is interrupted.
   */
  static void pauseBeforeRetry(DataAccessException victim, int attempt, int attempts) {
    if (attempt >= attempts) {
      throw victim;
    }
    log.debug("outbox statement was a deadlock victim; retrying (attempt {})", attempt, victim);
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * attempt));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw victim;
    }
  }
}
