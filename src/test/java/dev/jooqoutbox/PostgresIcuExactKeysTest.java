package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * {@link ExactKeysContract} on a PostgreSQL database whose default collation is linguistic (ICU's
 * root locale): there {@code 'a' < 'B'}, and a composed and a decomposed é collate as equal. The
 * test schemas of the other PostgreSQL tests live in a {@code C.UTF-8} database, whose byte order
 * proves nothing about that. A deterministic collation breaks such ties by the bytes, so {@code =}
 * stays exact and the claim's skip scan ({@code min(aggregate)}, {@code aggregate > ?}) still steps
 * through every distinct key; this class shows it. Needs a server with ICU (PostgreSQL 15+ built
 * with ICU, as Debian's is).
 */
class PostgresIcuExactKeysTest extends ExactKeysContract {

  PostgresIcuExactKeysTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Override
  Target open() {
    String server = TestDatabase.Kind.POSTGRES.serverUrl();
    String name = "t_icu_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    // The name comes from a UUID, never from input: DDL takes no bind values.
    admin(
        server,
        "CREATE DATABASE "
            + name
            + " TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'und'"
            + " LOCALE 'C.UTF-8'");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(withDatabase(server, name));
    config.setMaximumPoolSize(4);
    config.setPoolName("test-postgres-icu-" + name);
    HikariDataSource pool = new HikariDataSource(config);
    OutboxSchema.migrate(pool);
    var dsl = DSL.using(pool, SQLDialect.POSTGRES);
    assertThat(dsl.fetchValue("select 'a' < 'B'"))
        .as("linguistic default collation")
        .isEqualTo(true);
    assertThat(
            dsl.fetchValue(
                "select U&'caf\\00E9' < U&'cafe\\0301' or U&'caf\\00E9' > U&'cafe\\0301'"))
        .isEqualTo(true);
    return new Target(
        pool,
        SQLDialect.POSTGRES,
        () -> {
          pool.close();
          admin(server, "DROP DATABASE " + name + " WITH (FORCE)");
        });
  }

  private static void admin(String serverUrl, String ddl) {
    try (Connection c = DriverManager.getConnection(serverUrl)) {
      c.createStatement().execute(ddl);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run on " + serverUrl + ": " + ddl, e);
    }
  }

  /** Replaces the database of a {@code jdbc:postgresql://host:port/db?params} URL. */
  private static String withDatabase(String url, String database) {
    int query = url.indexOf('?');
    String base = query < 0 ? url : url.substring(0, query);
    String params = query < 0 ? "" : url.substring(query);
    int slash = base.indexOf('/', "jdbc:postgresql://".length());
    return (slash < 0 ? base : base.substring(0, slash)) + "/" + database + params;
  }
}
