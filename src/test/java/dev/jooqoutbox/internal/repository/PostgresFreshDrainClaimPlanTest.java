package dev.jooqoutbox.internal.repository;

/**
 * {@link PostgresClaimPlans} on the table of the benchmark's deep drain: 300,000 pending rows and
 * nothing sent before them, half of them then drained (a lease and a mark each). There the primary
 * key and the partial pending index on seq are the same size, and with the statistics from before
 * the drain and ORDER BY seq, PostgreSQL 15 read the window from the primary key, stepping over
 * every row sent since a lagging floor (about 70 primary-key entries per message delivered in the
 * benchmark).
 */
class PostgresFreshDrainClaimPlanTest extends PostgresClaimPlans {

  PostgresFreshDrainClaimPlanTest() {
    super(0, 300_000, 150_000, 1000);
  }
}
