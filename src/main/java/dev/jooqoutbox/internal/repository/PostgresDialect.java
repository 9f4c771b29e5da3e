package dev.jooqoutbox.internal.repository;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;

import dev.jooqoutbox.internal.naming.OutboxNaming;
import dev.jooqoutbox.schema.tables.OutboxMessageTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.OrderField;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.SelectForUpdateStep;
import org.jooq.impl.DSL;

/**
 * PostgreSQL 12+: a lease is one {@code UPDATE ... WHERE seq = ANY(ARRAY(SELECT ... FOR UPDATE SKIP
 * LOCKED)) RETURNING}, so it needs no transaction around it and costs one round trip; skip-locked
 * lets concurrent claimers pass over each other's rows instead of queueing on them. Relays in other
 * processes are woken with {@code NOTIFY}: after commit from a connection of its own (coalesced by
 * the writer), or inside the writer's transaction as the fallback, which PostgreSQL delivers at
 * commit only.
 */
final class PostgresDialect implements OutboxDialect {

  static final PostgresDialect INSTANCE = new PostgresDialect();

  /** Schemas inside the database, entered with {@code setSchema} (the {@code search_path}). */
  @Override
  public boolean schemaIsCatalog() {
    return false;
  }

  /** The {@code search_path} may name only schemas that do not exist. */
  @Override
  public boolean currentSchemaMayBeMissing() {
    return true;
  }

  private PostgresDialect() {}

  @Override
  public boolean appendsEvents() {
    return true;
  }

  @Override
  public <T> T claimTransaction(DSLContext dsl, Function<DSLContext, T> work) {
    return work.apply(dsl); // each lease is one atomic statement in autocommit
  }

  @Override
  public List<Record> lease(
      DSLContext tx, SelectForUpdateStep<Record1<Long>> candidates, Lease lease) {
    // = ANY(ARRAY(subquery)), not IN (subquery): the candidates are locked once, as an init plan,
    // and the rows then found by the primary key. With IN, and the statistics of a table analyzed
    // while empty, PostgreSQL planned a semi join that walked the whole primary key and ran the
    // locking subquery again for each row: 620 ms a lease once dead rows had piled up behind a held
    // horizon (PostgresHeldHorizonClaimTest).
    return new ArrayList<>(
        ClaimQueries.takeLease(
                tx,
                OUTBOX_MESSAGE.SEQ.eq(DSL.any(DSL.array(candidates.forUpdate().skipLocked()))),
                lease)
            .returning(MessageRows.FIELDS)
            .fetch());
  }

  @Override
  public Select<Record1<Long>> headSeqs(int aggregates) {
    return HeadQueries.recursiveHeads(aggregates, HeadQueries.HeadProbe.FIRST_IN_INDEX_ORDER);
  }

  @Override
  public HeadQueries.HeadProbe headProbe() {
    return HeadQueries.HeadProbe.FIRST_IN_INDEX_ORDER;
  }

  @Override
  public List<OrderField<?>> pendingSeqOrder(OutboxMessageTable t) {
    // The pending index is (sent_at, dead_at, seq) (changeset 006): where both are null, the
    // pending rows in seq order, and only it gives this order. With ORDER BY seq the primary key
    // gives it too, and PostgreSQL read that once a drain had made the statistics stale, stepping
    // over every row sent since the floor (PostgresFreshDrainClaimPlanTest).
    return List.of(t.SENT_AT, t.DEAD_AT, t.SEQ);
  }

  @Override
  public void notifyRelays(DSLContext tx, String topic) {
    // Delivered on commit only; identical notifications in one transaction fold into one.
    String channel = OutboxNaming.notifyChannel(tx.settings());
    tx.select(DSL.function("pg_notify", Object.class, DSL.inline(channel), DSL.val(topic)))
        .execute();
  }

  @Override
  public boolean notifiesOtherProcesses() {
    return true;
  }

  @Override
  public void notifyOtherProcesses(DSLContext dsl) {
    String channel = OutboxNaming.notifyChannel(dsl.settings());
    dsl.connection(
        connection -> {
          // One statement, so one transaction in autocommit. A notification needs no durability:
          // without waiting for the commit's WAL flush the notifier is free again in well under a
          // millisecond. set_config(..., true) lasts for this transaction only.
          DSL.using(connection, dsl.dialect())
              .select(
                  DSL.function(
                      "set_config",
                      String.class,
                      DSL.inline("synchronous_commit"),
                      DSL.inline("off"),
                      DSL.inline(true)),
                  DSL.function("pg_notify", Object.class, DSL.inline(channel), DSL.inline("")))
              .execute();
          if (!connection.getAutoCommit()) {
            connection.commit(); // a pool that hands out connections outside autocommit
          }
        });
  }

  @Override
  public WakeupListener wakeupListener(
      ConnectionProvider connections,
      String channel,
      Runnable onNotification,
      Duration reconnectDelay) {
    return new PostgresListener(connections, channel, onNotification, reconnectDelay);
  }

  @Override
  public boolean isMissingTable(org.jooq.exception.DataAccessException e) {
    return "42P01".equals(e.sqlState()); // undefined_table
  }
}
