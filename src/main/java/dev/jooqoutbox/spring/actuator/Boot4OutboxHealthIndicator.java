package dev.jooqoutbox.spring.actuator;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** The {@code outbox} health indicator on Spring Boot 4, whose health API has its own module. */
final class Boot4OutboxHealthIndicator implements HealthIndicator {

  private final OutboxHealthCheck check;

  Boot4OutboxHealthIndicator(OutboxHealthCheck check) {
    this.check = check;
  }

  @Override
  public Health health() {
    OutboxHealthCheck.Reading reading = check.read();
    return (reading.up() ? Health.up() : Health.down()).withDetails(reading.details()).build();
  }
}
