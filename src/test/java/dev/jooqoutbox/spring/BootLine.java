package dev.jooqoutbox.spring;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configurations by role, for the line on the test classpath: Boot 3 keeps
 * them in spring-boot-autoconfigure, Boot 4 in one module each. The tests are compiled once and run
 * on both lines (the boot4 profile), so they name these classes only here, as text.
 */
public final class BootLine {

  private BootLine() {}

  /** Whether the classpath has Spring Boot 4. */
  public static boolean isBoot4() {
    return present("org.springframework.boot.health.contributor.HealthIndicator");
  }

  /** DataSource, transaction manager and jOOQ: what a spring-boot-starter-jooq application has. */
  public static AutoConfigurations jooq() {
    return of(
        "autoconfigure.jdbc.DataSourceAutoConfiguration",
        "jdbc.autoconfigure.DataSourceAutoConfiguration",
        "autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
        "jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "autoconfigure.transaction.TransactionAutoConfiguration",
        "transaction.autoconfigure.TransactionAutoConfiguration",
        "autoconfigure.jooq.JooqAutoConfiguration",
        "jooq.autoconfigure.JooqAutoConfiguration");
  }

  /** DataSource and jOOQ without a transaction manager. */
  public static AutoConfigurations jooqWithoutTransactions() {
    return of(
        "autoconfigure.jdbc.DataSourceAutoConfiguration",
        "jdbc.autoconfigure.DataSourceAutoConfiguration",
        "autoconfigure.jooq.JooqAutoConfiguration",
        "jooq.autoconfigure.JooqAutoConfiguration");
  }

  public static AutoConfigurations liquibase() {
    return of(
        "autoconfigure.liquibase.LiquibaseAutoConfiguration",
        "liquibase.autoconfigure.LiquibaseAutoConfiguration");
  }

  /** The Jackson 2 ObjectMapper: Boot 3's JacksonAutoConfiguration, Boot 4's jackson2 module. */
  public static AutoConfigurations jackson() {
    return of(
        "autoconfigure.jackson.JacksonAutoConfiguration",
        "jackson2.autoconfigure.Jackson2AutoConfiguration");
  }

  /** Endpoints and health, without a web server. */
  public static AutoConfigurations actuator() {
    return of(
        "actuate.autoconfigure.endpoint.EndpointAutoConfiguration",
        "actuate.autoconfigure.health.HealthContributorAutoConfiguration",
        "health.autoconfigure.contributor.HealthContributorAutoConfiguration",
        "actuate.autoconfigure.health.HealthEndpointAutoConfiguration",
        "health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration");
  }

  /** The outbox's own auto-configurations. */
  public static AutoConfigurations outbox() {
    return AutoConfigurations.of(
        OutboxAutoConfiguration.class,
        OutboxRelayAutoConfiguration.class,
        dev.jooqoutbox.spring.actuator.OutboxActuatorAutoConfiguration.class);
  }

  /** The classes of {@code names} (relative to org.springframework.boot) that exist here. */
  private static AutoConfigurations of(String... names) {
    List<Class<?>> classes = new ArrayList<>();
    for (String name : names) {
      String full = "org.springframework.boot." + name;
      if (present(full)) {
        classes.add(ClassUtils.resolveClassName(full, BootLine.class.getClassLoader()));
      }
    }
    if (classes.isEmpty()) {
      throw new IllegalStateException("none of " + List.of(names) + " is on the classpath");
    }
    return AutoConfigurations.of(classes.toArray(Class<?>[]::new));
  }

  private static boolean present(String name) {
    return ClassUtils.isPresent(name, BootLine.class.getClassLoader());
  }
}
