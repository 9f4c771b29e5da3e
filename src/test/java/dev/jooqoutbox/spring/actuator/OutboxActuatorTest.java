package dev.jooqoutbox.spring.actuator;

import static dev.jooqoutbox.schema.Tables.OUTBOX_MESSAGE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.spring.BootLine;
import dev.jooqoutbox.testing.MigratedSqlite;
import dev.jooqoutbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator and the endpoint: present only with the Actuator, DOWN for a stuck message
 * or too many dead letters, and the endpoint's stats, dead letters and requeue; on a real SQLite
 * file, the indicator read on whichever Boot line runs the test.
 */
class OutboxActuatorTest {

  @RegisterExtension static final MigratedSqlite db = new MigratedSqlite();

  private static ApplicationContextRunner runner() {
    return withoutActuator().withConfiguration(BootLine.actuator());
  }

  private static ApplicationContextRunner withoutActuator() {
    return new ApplicationContextRunner()
        .withConfiguration(BootLine.jooq())
        .withConfiguration(BootLine.outbox())
        .withPropertyValues(
            "spring.datasource.url=" + db.url(),
            "spring.jooq.sql-dialect=" + db.dialect().name(),
            "jooq-outbox.relay.enabled=false",
            "management.endpoints.web.exposure.include=health,outbox");
  }

  /** A pending message written {@code age} ago, through an outbox on an earlier clock. */
  private static String pendingFor(Duration age) {
    Outbox old = Outbox.builder(db.dsl()).clock(new MutableClock(Instant.now().minus(age))).build();
    return db.dsl().transactionResult(tx -> old.write(tx.dsl(), "o-1", "order.audited", "{}"));
  }

  private static String deadLetter() {
    String id =
        db.dsl()
            .transactionResult(
                tx -> Outbox.create(tx.dsl()).write(tx.dsl(), "o-2", "order.rejected", "{}"));
    db.dsl()
        .update(OUTBOX_MESSAGE)
        .set(OUTBOX_MESSAGE.DEAD_AT, Instant.now())
        .set(OUTBOX_MESSAGE.LAST_ERROR, "handler failed")
        .set(OUTBOX_MESSAGE.ATTEMPTS, 3)
        .where(OUTBOX_MESSAGE.ID.eq(id))
        .execute();
    return id;
  }

  private static HealthProbe.Reading health(
      org.springframework.context.ApplicationContext context) {
    return HealthProbe.read(context.getBean("outboxHealthIndicator"));
  }

  @Test
  void theHealthIsUpWithItsDetailsWhenNothingIsStuck() {
    runner()
        .run(
            context -> {
              HealthProbe.Reading reading = health(context);
              assertThat(reading.status()).isEqualTo("UP");
              assertThat(reading.details())
                  .containsEntry("pending", 0L)
                  .containsEntry("oldestPendingAge", null)
                  .containsEntry("deadLetters", 0L);
            });
  }

  @Test
  void theHealthIsDownWhenTheOldestPendingMessageIsOlderThanTheThreshold() {
    pendingFor(Duration.ofMinutes(10));
    runner()
        .withPropertyValues("jooq-outbox.health.max-pending-age=5m")
        .run(
            context -> {
              HealthProbe.Reading reading = health(context);
              assertThat(reading.status()).isEqualTo("DOWN");
              assertThat(reading.details()).containsEntry("pending", 1L);
              assertThat((String) reading.details().get("reason")).contains("older than PT5M");
            });
    runner()
        .withPropertyValues("jooq-outbox.health.max-pending-age=1h")
        .run(context -> assertThat(health(context).status()).isEqualTo("UP"));
  }

  @Test
  void deadLettersTakeTheHealthDownOnlyAboveAThresholdSetForThem() {
    deadLetter();
    runner()
        .run(
            context -> {
              HealthProbe.Reading reading = health(context);
              assertThat(reading.status()).as("no threshold by default").isEqualTo("UP");
              assertThat(reading.details()).containsEntry("deadLetters", 1L);
            });
    runner()
        .withPropertyValues("jooq-outbox.health.max-dead-letters=0")
        .run(
            context -> {
              HealthProbe.Reading reading = health(context);
              assertThat(reading.status()).isEqualTo("DOWN");
              assertThat((String) reading.details().get("reason")).contains("more than 0 dead");
            });
    runner()
        .withPropertyValues("jooq-outbox.health.max-dead-letters=1")
        .run(context -> assertThat(health(context).status()).isEqualTo("UP"));
  }

  @Test
  void theHealthIndicatorCanBeTurnedOff() {
    runner()
        .withPropertyValues("management.health.outbox.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("outboxHealthIndicator"));
  }

  @Test
  void anInvalidHealthThresholdStopsTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("jooq-outbox.health.max-pending-age=0s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "jooq-outbox.health.max-pending-age must be a positive duration, was PT0S"));
  }

  @Test
  void withoutTheActuatorThereIsNoIndicatorAndNoEndpoint() {
    withoutActuator()
        .withClassLoader(
            new org.springframework.boot.test.context.FilteredClassLoader(
                "org.springframework.boot.actuate."))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(OutboxAdmin.class);
              assertThat(context).doesNotHaveBean(OutboxEndpoint.class);
              assertThat(context).doesNotHaveBean("outboxHealthIndicator");
            });
  }

  @Test
  void theEndpointExistsOnlyWhenExposed() {
    runner()
        .withPropertyValues("management.endpoints.web.exposure.include=health")
        .run(context -> assertThat(context).doesNotHaveBean(OutboxEndpoint.class));
  }

  @Test
  @SuppressWarnings("unchecked")
  void theEndpointShowsStatsAndDeadLettersAndRequeuesOne() {
    pendingFor(Duration.ofSeconds(1));
    String dead = deadLetter();
    runner()
        .run(
            context -> {
              OutboxEndpoint endpoint = context.getBean(OutboxEndpoint.class);
              Map<String, Object> stats = endpoint.stats();
              assertThat(stats)
                  .containsEntry("pending", 1L)
                  .containsEntry("dead", 1L)
                  .containsEntry("unknown", 0L);
              assertThat((Map<String, Object>) stats.get("topics"))
                  .containsKeys("order.audited", "order.rejected");

              Map<String, Object> page = endpoint.deadLetters("dead-letters", null, null, null);
              List<Map<String, Object>> letters =
                  (List<Map<String, Object>>) page.get("deadLetters");
              assertThat(letters)
                  .singleElement()
                  .satisfies(
                      l -> {
                        assertThat(l)
                            .containsEntry("id", dead)
                            .containsEntry("lastError", "handler failed");
                        assertThat(l).doesNotContainKey("payload");
                      });
              assertThat(
                      endpoint
                          .deadLetters("dead-letters", "other.topic", 10, null)
                          .get("deadLetters"))
                  .asList()
                  .isEmpty();
              assertThat(endpoint.deadLetters("nothing-here", null, null, null)).isNull();

              assertThat(endpoint.requeue("dead-letters", dead)).containsEntry("requeued", true);
              assertThat(endpoint.requeue("dead-letters", dead)).containsEntry("requeued", false);
              assertThat(context.getBean(OutboxAdmin.class).deadCount()).isZero();
              assertThat(context.getBean(OutboxAdmin.class).pendingCount()).isEqualTo(2);
            });
  }
}
