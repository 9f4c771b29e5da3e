package dev.jooqoutbox.spring.actuator;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.spring.OutboxAutoConfiguration;
import dev.jooqoutbox.spring.OutboxProperties;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The outbox's Actuator parts, only when the Actuator is on the classpath: the {@code outbox}
 * health indicator (off with {@code management.health.outbox.enabled=false}) and the {@link
 * OutboxEndpoint}. The indicator's API moved between Spring Boot 3 and 4, so each line has its own
 * small configuration, chosen by the classes present.
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(OutboxAdmin.class)
@Import({
  OutboxActuatorAutoConfiguration.Boot3Health.class,
  OutboxActuatorAutoConfiguration.Boot4Health.class
})
public class OutboxActuatorAutoConfiguration {

  static final String BOOT3_HEALTH = "org.springframework.boot.actuate.health.HealthIndicator";
  static final String BOOT4_HEALTH = "org.springframework.boot.health.contributor.HealthIndicator";

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint(endpoint = OutboxEndpoint.class)
  OutboxEndpoint outboxEndpoint(OutboxAdmin admin) {
    return new OutboxEndpoint(admin);
  }

  /** The switch of the indicator, whichever line draws it: on unless set to {@code false}. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.TYPE)
  @ConditionalOnProperty(
      prefix = "management.health.outbox",
      name = "enabled",
      matchIfMissing = true)
  @interface ConditionalOnOutboxHealthEnabled {}

  /**
   * The indicators are lambdas of the line's own interface: no class of this jar implements a Boot
   * 4 type, so every class loads on Boot 3 (and the other way round). The imported {@code Health}
   * types are Boot 3's, the line this jar compiles against; Boot 4's are spelled out.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = BOOT3_HEALTH)
  @ConditionalOnMissingClass(BOOT4_HEALTH)
  @ConditionalOnOutboxHealthEnabled
  static class Boot3Health {

    @Bean
    @ConditionalOnMissingBean(name = "outboxHealthIndicator")
    HealthIndicator outboxHealthIndicator(OutboxAdmin admin, OutboxProperties properties) {
      OutboxHealthCheck check = new OutboxHealthCheck(admin, properties.getHealth());
      return () -> {
        var reading = check.read();
        var status = reading.up() ? Health.up() : Health.down();
        return status.withDetails(reading.details()).build();
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = BOOT4_HEALTH)
  @ConditionalOnOutboxHealthEnabled
  static class Boot4Health {

    @Bean
    @ConditionalOnMissingBean(name = "outboxHealthIndicator")
    org.springframework.boot.health.contributor.HealthIndicator outboxHealthIndicator(
        OutboxAdmin admin, OutboxProperties properties) {
      OutboxHealthCheck check = new OutboxHealthCheck(admin, properties.getHealth());
      return () -> {
        var reading = check.read();
        var status =
            reading.up()
                ? org.springframework.boot.health.contributor.Health.up()
                : org.springframework.boot.health.contributor.Health.down();
        return status.withDetails(reading.details()).build();
      };
    }
  }
}
