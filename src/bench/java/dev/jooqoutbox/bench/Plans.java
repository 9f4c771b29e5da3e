package dev.jooqoutbox.bench;

import dev.jooqoutbox.internal.repository.JooqOutboxRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jooq.ExecuteListener;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;

/**
 * Evidence for the figures: the PostgreSQL plan of the repository's own claim statement, captured
 * as jOOQ renders it (values inlined) and run under {@code EXPLAIN (ANALYZE, BUFFERS)} in a
 * transaction that is rolled back, so the table is left as it was.
 */
final class Plans {

  private Plans() {}

  /** Writes the plan of one claim of {@code batch} to {@code file}; returns it. */
  static String explainClaim(DataSource ds, int batch, Path file) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      AtomicReference<String> sql = new AtomicReference<>();
      var config =
          new DefaultConfiguration()
              .set(c)
              .set(SQLDialect.POSTGRES)
              .set(
                  ExecuteListener.onExecuteStart(
                      ctx -> {
                        // The first pass's runs select (the floor's refresh comes before it).
                        String rendered = ctx.dsl().renderInlined(ctx.query());
                        if (rendered.contains("run_pos")) {
                          sql.compareAndSet(null, rendered);
                        }
                      }));
      new JooqOutboxRepository(DSL.using(config))
          .claim(
              Set.of(BenchDatabase.TOPIC),
              batch,
              PureSqlLoop.MAX_RUN,
              Duration.ofSeconds(30),
              "explain",
              now());
      c.rollback();
      StringBuilder plan = new StringBuilder();
      plan.append("-- the repository's first claim pass (the runs), as jOOQ renders it:\n")
          .append(sql.get())
          .append("\n\n");
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + sql.get())) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      c.rollback();
      Files.createDirectories(file.getParent());
      Files.writeString(file, plan.toString());
      return plan.toString();
    } catch (SQLException e) {
      throw new IllegalStateException("EXPLAIN of the claim failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Instant now() {
    return Instant.now();
  }
}
