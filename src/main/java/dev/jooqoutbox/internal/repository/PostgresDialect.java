package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.Outbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.SelectForUpdateStep;
import org.jooq.impl.DSL;

/**
 * PostgreSQL 12+: a lease is one {@code UPDATE ... WHERE seq IN (SELECT ... FOR UPDATE SKIP LOCKED)
 * RETURNING}, so it needs no transaction around it and costs one round trip; skip-locked lets
 * concurrent claimers pass over each other's rows instead of queueing on them. Writers wake relays
 * with {@code NOTIFY}, which PostgreSQL delivers at commit only.
 */
final class PostgresDialect implements OutboxDialect {

  static final PostgresDialect INSTANCE = new PostgresDialect();

  /** The channel of the notification a write sends; relays {@code LISTEN} on it. */
  static final String CHANNEL = Outbox.NOTIFY_CHANNEL;

  private PostgresDialect() {}

  @Override
  public <T> T claimTransaction(DSLContext dsl, Function<DSLContext, T> work) {
    return work.apply(dsl); // each lease is one atomic statement in autocommit
  }

  @Override
  public List<Record> lease(
      DSLContext tx, SelectForUpdateStep<Record1<Long>> candidates, Lease lease) {
    return new ArrayList<>(
        ClaimQueries.takeLease(
                tx, OUTBOX_MESSAGE.SEQ.in(candidates.forUpdate().skipLocked()), lease)
            .returning(MessageRows.FIELDS)
            .fetch());
  }

  @Override
  public Select<Record1<Long>> headSeqs(int aggregates) {
    return ClaimQueries.recursiveHeads(aggregates, ClaimQueries.HeadProbe.FIRST_IN_INDEX_ORDER);
  }

  @Override
  public void notifyRelays(DSLContext tx, String topic) {
    // Delivered on commit only; identical notifications in one transaction fold into one.
    tx.select(DSL.function("pg_notify", Object.class, DSL.inline(CHANNEL), DSL.val(topic)))
        .execute();
  }

  @Override
  public WakeupListener wakeupListener(
      ConnectionProvider connections, Runnable onNotification, Duration reconnectDelay) {
    return new PostgresListener(connections, onNotification, reconnectDelay);
  }
}
