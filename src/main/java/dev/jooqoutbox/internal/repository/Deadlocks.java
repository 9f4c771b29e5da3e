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
        if (e.sqlStateClass() != SQLStateClass.C40_TRANSACTION_ROLLBACK || attempt >= ATTEMPTS) {
          throw e;
        }
        log.debug("outbox statement was a deadlock victim; retrying (attempt {})", attempt, e);
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
