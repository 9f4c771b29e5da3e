package dev.jooqoutbox.spring.actuator;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The {@code outbox} health indicator on Spring Boot 3. */
final class Boot3OutboxHealthIndicator implements HealthIndicator {

  private final OutboxHealthCheck check;

  Boot3OutboxHealthIndicator(OutboxHealthCheck check) {
    this.check = check;
  }

  @Override
  public Health health() {
    OutboxHealthCheck.Reading reading = check.read();
    return (reading.up() ? Health.up() : Health.down()).withDetails(reading.details()).build();
  }
}
