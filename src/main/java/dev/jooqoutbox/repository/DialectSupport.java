package dev.jooqoutbox.repository;

import dev.jooqoutbox.OutboxException;
import org.jooq.SQLDialect;

/**
 * Every way in which the supported databases differ for the outbox, decided once from the dialect.
 * The repository asks these capabilities instead of testing the dialect itself.
 */
enum DialectSupport {
  /**
   * PostgreSQL: one {@code UPDATE ... WHERE seq IN (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING}.
   * Skip-locked lets concurrent claimers pass over each other's rows instead of queueing on them,
   * and one statement means one round trip.
   */
  POSTGRES(
      ClaimStyle.UPDATE_RETURNING_SKIP_LOCKED,
      true,
      true,
      false,
      HeadScan.RECURSIVE_BY_INDEX_ORDER),

  /**
   * MariaDB and MySQL 8: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then {@code UPDATE} in the same
   * transaction. They have no {@code UPDATE ... RETURNING} (jOOQ would emulate it as an upsert,
   * which is not a claim), and they refuse {@code LIMIT} inside an {@code IN} subquery.
   */
  MARIADB(
      ClaimStyle.SELECT_SKIP_LOCKED_THEN_UPDATE, false, false, true, HeadScan.LOOSE_INDEX_GROUP_BY),

  /**
   * SQLite: one writer at a time, so {@code BEGIN IMMEDIATE} takes the write lock up front (a
   * deferred transaction that read first could fail with SQLITE_BUSY on upgrade, which the busy
   * timeout cannot wait out), then one {@code UPDATE ... RETURNING}. SQLite rejects {@code FOR
   * UPDATE}, and needs none: nobody else writes while we hold the lock.
   */
  SQLITE(
      ClaimStyle.IMMEDIATE_TRANSACTION_UPDATE_RETURNING,
      true,
      true,
      false,
      HeadScan.RECURSIVE_BY_MIN);

  /** How a batch is claimed atomically. */
  enum ClaimStyle {
    UPDATE_RETURNING_SKIP_LOCKED,
    SELECT_SKIP_LOCKED_THEN_UPDATE,
    IMMEDIATE_TRANSACTION_UPDATE_RETURNING
  }

  final ClaimStyle claimStyle;

  /**
   * Whether a statement can skip a duplicate id without error and without aborting the transaction
   * ({@code ON CONFLICT DO NOTHING}). MariaDB's equivalent, {@code INSERT IGNORE}, also turns real
   * errors into warnings, so there we catch the duplicate-key error instead, which MariaDB rolls
   * back at statement level.
   */
  final boolean insertOnConflictDoNothing;

  /** Whether {@code DELETE ... WHERE key IN (SELECT ... LIMIT n)} works (batched purge). */
  final boolean limitInSubquery;

  /**
   * Whether the stored row behind a duplicate id must be read with a locking read. MariaDB's
   * default REPEATABLE READ serves a plain {@code SELECT} from the snapshot of the transaction's
   * first read, which can predate the commit of the row the insert collided with; a locking read
   * sees the latest committed row. PostgreSQL (READ COMMITTED) takes a new snapshot per statement,
   * and SQLite has a single writer.
   */
  final boolean lockingReadOfDuplicate;

  /**
   * How the claim's second pass finds the oldest pending seq of each aggregate with one or two
   * index probes per aggregate, never a walk of all pending rows.
   */
  enum HeadScan {
    /**
     * PostgreSQL: a recursive query steps from aggregate to aggregate, and takes each one's head as
     * the first pending entry at or after it in (aggregate, seq) order. Not {@code min(seq) where
     * aggregate = ?}: for a correlated parameter PostgreSQL plans that as a walk of the
     * pending-by-seq index filtered on the aggregate, reading every older row of other aggregates.
     */
    RECURSIVE_BY_INDEX_ORDER,
    /** SQLite: the same recursion, with {@code min(seq) where aggregate = ?}: one index seek. */
    RECURSIVE_BY_MIN,
    /**
     * MariaDB/MySQL: {@code min(seq) ... group by aggregate}, which they answer with a loose index
     * scan ("using index for group-by") of (aggregate, sent_at, dead_at, seq). They cannot seek a
     * correlated range in the recursive form and would scan the index once per aggregate.
     */
    LOOSE_INDEX_GROUP_BY
  }

  final HeadScan headScan;

  DialectSupport(
      ClaimStyle claimStyle,
      boolean insertOnConflictDoNothing,
      boolean limitInSubquery,
      boolean lockingReadOfDuplicate,
      HeadScan headScan) {
    this.claimStyle = claimStyle;
    this.insertOnConflictDoNothing = insertOnConflictDoNothing;
    this.limitInSubquery = limitInSubquery;
    this.lockingReadOfDuplicate = lockingReadOfDuplicate;
    this.headScan = headScan;
  }

  static DialectSupport of(SQLDialect dialect) {
    return switch (dialect.family()) {
      case POSTGRES -> POSTGRES;
      case MARIADB, MYSQL -> MARIADB;
      case SQLITE -> SQLITE;
      default ->
          throw new OutboxException(
              "jooq-outbox supports PostgreSQL, MariaDB/MySQL and SQLite, not " + dialect);
    };
  }
}
