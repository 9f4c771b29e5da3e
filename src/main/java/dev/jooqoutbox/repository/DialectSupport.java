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
  POSTGRES(ClaimStyle.UPDATE_RETURNING_SKIP_LOCKED, true, true),

  /**
   * MariaDB and MySQL 8: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then {@code UPDATE} in the same
   * transaction. They have no {@code UPDATE ... RETURNING} (jOOQ would emulate it as an upsert,
   * which is not a claim), and they refuse {@code LIMIT} inside an {@code IN} subquery.
   */
  MARIADB(ClaimStyle.SELECT_SKIP_LOCKED_THEN_UPDATE, false, false),

  /**
   * SQLite: one writer at a time, so {@code BEGIN IMMEDIATE} takes the write lock up front (a
   * deferred transaction that read first could fail with SQLITE_BUSY on upgrade, which the busy
   * timeout cannot wait out), then one {@code UPDATE ... RETURNING}. SQLite rejects {@code FOR
   * UPDATE}, and needs none: nobody else writes while we hold the lock.
   */
  SQLITE(ClaimStyle.IMMEDIATE_TRANSACTION_UPDATE_RETURNING, true, true);

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

  DialectSupport(
      ClaimStyle claimStyle, boolean insertOnConflictDoNothing, boolean limitInSubquery) {
    this.claimStyle = claimStyle;
    this.insertOnConflictDoNothing = insertOnConflictDoNothing;
    this.limitInSubquery = limitInSubquery;
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
