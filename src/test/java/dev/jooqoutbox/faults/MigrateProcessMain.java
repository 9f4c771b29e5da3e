package dev.jooqoutbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.jooqoutbox.OutboxSchema;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs {@link OutboxSchema#migrate} in its own JVM, for the concurrent-migration test.
 *
 * <p>Arguments: {@code jdbcUrl goFile}. It opens its connection, prints {@code WAITING} and waits
 * for {@code goFile} to exist, so two of these begin the update within milliseconds of each other.
 * Exits 0 after a successful update and prints {@code MIGRATED}; prints the failure and exits 1
 * otherwise.
 */
public final class MigrateProcessMain {

  private MigrateProcessMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setMaximumPoolSize(1);
    Path go = Path.of(args[1]);
    try (HikariDataSource dataSource = new HikariDataSource(config)) {
      // Load Liquibase before the start line, so both processes reach the lock at the same time.
      Class.forName("liquibase.Liquibase");
      Class.forName("liquibase.database.core.PostgresDatabase");
      dataSource.getConnection().close();
      System.out.println("WAITING");
      System.out.flush();
      while (!Files.exists(go)) {
        Thread.sleep(2);
      }
      OutboxSchema.migrate(dataSource);
      System.out.println("MIGRATED");
    } catch (RuntimeException e) {
      e.printStackTrace(System.out);
      System.exit(1);
    }
  }
}
