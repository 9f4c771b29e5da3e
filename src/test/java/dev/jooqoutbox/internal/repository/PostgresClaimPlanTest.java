package dev.jooqoutbox.internal.repository;

/**
 * {@link PostgresClaimPlans} on 300,000 sent rows awaiting purge and 400,000 pending rows behind
 * them, 200,000 of which are then drained.
 */
class PostgresClaimPlanTest extends PostgresClaimPlans {

  PostgresClaimPlanTest() {
    super(300_000, 400_000, 200_000, 1000);
  }
}
