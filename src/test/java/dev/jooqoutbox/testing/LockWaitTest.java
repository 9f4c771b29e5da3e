package dev.jooqoutbox.testing;

import static dev.jooqoutbox.schema.Tables.INBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link LockWait} sees a session blocked behind the holder, and only then. */
class LockWaitTest {

  @ParameterizedTest
  @EnumSource(TestDatabase.Kind.class)
  void seesASessionBlockedBehindTheHolderAndNothingElse(TestDatabase.Kind kind) throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (TestDatabase db = TestDatabase.migrated(kind);
        Connection holder = db.dataSource().getConnection()) {
      holder.setAutoCommit(false);
      insert(DSL.using(holder, db.dialect()));
      LockWait lockWait = LockWait.behind(db, holder);

      // Holding a lock nobody wants is not a wait.
      assertThatThrownBy(() -> lockWait.awaitBlocked(Duration.ofMillis(300)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("no ");

      Future<Integer> second =
          other.submit(() -> lockWait.inWaitingTransaction(db.dsl(), LockWaitTest::insert));
      lockWait.awaitBlocked(Duration.ofSeconds(30));
      assertThat(second.isDone()).as("the second session still waits").isFalse();
      holder.rollback();
      second.get(30, TimeUnit.SECONDS);
      holder.setAutoCommit(true);
      assertThat(db.dsl().fetchCount(INBOX_MESSAGE)).isEqualTo(1);
    } finally {
      other.shutdownNow();
    }
  }

  private static int insert(DSLContext tx) {
    return tx.insertInto(INBOX_MESSAGE)
        .set(INBOX_MESSAGE.CONSUMER, "c")
        .set(INBOX_MESSAGE.MESSAGE_ID, "m")
        .set(INBOX_MESSAGE.SEEN_AT, Instant.EPOCH)
        .execute();
  }
}
