package dev.jooqoutbox.internal.repository;

/**
 * {@link PostgresClaimPlans} on the benchmark's hot aggregates: 300,000 pending rows over 10
 * aggregates, half of them then drained. There each aggregate has 30,000 rows, and PostgreSQL 15
 * answered the probe for an aggregate's oldest pending row ({@code aggregate = ? ... ORDER BY seq
 * LIMIT 1}) by walking the primary key and filtering, 27,000 rows a probe, 620 ms a claim.
 */
class PostgresHotClaimPlanTest extends PostgresClaimPlans {

  PostgresHotClaimPlanTest() {
    super(0, 300_000, 150_000, 10);
  }
}
