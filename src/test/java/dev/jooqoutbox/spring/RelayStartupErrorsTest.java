package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxHandler;
import dev.jooqoutbox.testing.MigratedSqlite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

/**
 * A handler the relay could not run stops the application's start, with a message that names the
 * method or bean and says what to change; so does a relay property out of range, by its name.
 */
class RelayStartupErrorsTest {

  @RegisterExtension static final MigratedSqlite db = new MigratedSqlite();

  private static ApplicationContextRunner runner() {
    return Contexts.runner(db.database());
  }

  private static ContextConsumer<AssertableApplicationContext> failsWith(String... parts) {
    return context -> {
      assertThat(context).hasFailed();
      for (String part : parts) {
        assertThat(context).getFailure().hasMessageContaining(part);
      }
    };
  }

  static class One {
    @OutboxListener("order.placed")
    void on(OutboxMessage message) {}
  }

  static class Two {
    @OutboxListener("order.placed")
    void again(OutboxMessage message) {}
  }

  @Test
  void twoHandlersForOneTopic() {
    runner()
        .withBean(One.class)
        .withBean(Two.class)
        .run(
            failsWith(
                "two handlers for topic order.placed",
                "One.on(OutboxMessage)",
                "Two.again(OutboxMessage)"));
  }

  @Test
  void aListenerMethodAndAHandlerBeanForOneTopic() {
    runner()
        .withBean(One.class)
        .withUserConfiguration(HandlerBean.class)
        .run(failsWith("two handlers for topic order.placed", "bean 'placedHandler'"));
  }

  @Configuration(proxyBeanMethods = false)
  static class HandlerBean {
    @Bean
    @OutboxListener("order.placed")
    OutboxHandler placedHandler() {
      return m -> {};
    }
  }

  interface Shape {}

  static class AbstractPayload {
    @OutboxListener("shape.drawn")
    void on(Shape shape) {}
  }

  @Test
  void aPayloadTypeJacksonCannotCreate() {
    runner()
        .withBean(AbstractPayload.class)
        .run(
            failsWith(
                "AbstractPayload.on(Shape)",
                "payload parameter type",
                "is abstract and carries no @JsonTypeInfo"));
  }

  /**
   * Two constructors of two arguments and no annotation: Jackson takes neither. (One was enough
   * until the build compiled with parameter names: with them, and the parameter-names module Boot
   * 4's Jackson 2 auto-configuration registers, Jackson 2.18+ takes a single such constructor as
   * its creator.)
   */
  static class NoCreator {
    private final String name;

    NoCreator(String name, int number) {
      this.name = name + number;
    }

    NoCreator(int number, String name) {
      this.name = number + name;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static class NoCreatorPayload {
    @OutboxListener("thing.made")
    void on(NoCreator thing) {}
  }

  @Test
  void aPayloadTypeWithoutAConstructorJacksonCanUse() {
    runner()
        .withBean(NoCreatorPayload.class)
        .run(failsWith("NoCreatorPayload.on(NoCreator)", "no constructor or factory method"));
  }

  static class TwoPayloads {
    @OutboxListener("order.placed")
    void on(String a, Integer b) {}
  }

  @Test
  void twoPayloadParameters() {
    runner()
        .withBean(TwoPayloads.class)
        .run(failsWith("TwoPayloads.on(String, Integer)", "two payload parameters"));
  }

  @Transactional
  static class ProxiedPrivate {
    @OutboxListener("order.placed")
    private void on(OutboxMessage message) {}
  }

  @Test
  void aPrivateMethodOfAProxiedBean() {
    runner()
        .withBean(ProxiedPrivate.class)
        .run(
            failsWith(
                "ProxiedPrivate.on(OutboxMessage)", "cannot be called through the bean's proxy"));
  }

  @Transactional
  static class ProxiedFinal {
    @OutboxListener("order.placed")
    public final void on(OutboxMessage message) {}
  }

  @Test
  void aFinalMethodOfAProxiedBean() {
    runner()
        .withBean(ProxiedFinal.class)
        .run(failsWith("ProxiedFinal.on(OutboxMessage)", "it is final"));
  }

  interface Service {
    void work();
  }

  @Transactional
  static class InterfaceProxied implements Service {
    @Override
    public void work() {}

    @OutboxListener("order.placed")
    public void on(OutboxMessage message) {}
  }

  @Test
  void aMethodMissingFromTheInterfacesOfAJdkProxy() {
    runner()
        .withPropertyValues("spring.aop.proxy-target-class=false")
        .withBean(InterfaceProxied.class)
        .run(
            failsWith(
                "InterfaceProxied.on(OutboxMessage)", "cannot be called through the bean's proxy"));
  }

  static class StaticListener {
    @OutboxListener("order.placed")
    static void on(OutboxMessage message) {}
  }

  @Test
  void aStaticMethod() {
    runner()
        .withBean(StaticListener.class)
        .run(failsWith("StaticListener.on(OutboxMessage)", "static"));
  }

  static class BadTopic {
    @OutboxListener("order placed")
    void on(OutboxMessage message) {}
  }

  @Test
  void aTopicTheRelayRefuses() {
    runner()
        .withBean(BadTopic.class)
        .run(failsWith("BadTopic.on(OutboxMessage)", "handler topic must be"));
  }

  static class InboxListener {
    @OutboxListener(value = "order.placed", inbox = "ledger")
    void on(OutboxMessage message) {}
  }

  @Test
  void anInboxWithoutATransactionManager() {
    new ApplicationContextRunner()
        .withConfiguration(BootLine.jooqWithoutTransactions())
        .withConfiguration(BootLine.outbox())
        .withPropertyValues(
            "spring.datasource.url=" + db.url(), "spring.jooq.sql-dialect=" + db.dialect().name())
        .withBean(InboxListener.class)
        .run(failsWith("InboxListener.on(OutboxMessage)", "no single PlatformTransactionManager"));
  }

  @OutboxListener("order.placed")
  static class NotAHandler {}

  @Test
  void anAnnotatedBeanThatIsNoHandler() {
    runner()
        .withBean(NotAHandler.class)
        .run(failsWith("bean", "neither an OutboxHandler nor an AsyncOutboxHandler"));
  }

  @Test
  void aRelayPropertyOutOfRangeIsNamed() {
    runner()
        .withBean(One.class)
        .withPropertyValues("jooq-outbox.relay.batch-size=0")
        .run(failsWith("jooq-outbox.relay.batch-size must be between 1 and 10000, was 0"));
  }

  @Test
  void aBackoffMaxBelowItsInitialNamesBoth() {
    runner()
        .withBean(One.class)
        .withPropertyValues(
            "jooq-outbox.relay.backoff.initial=10s", "jooq-outbox.relay.backoff.max=1s")
        .run(
            failsWith(
                "jooq-outbox.relay.backoff.max must be at least jooq-outbox.relay.backoff.initial"));
  }

  @Test
  void aCustomizersInvalidRetryPolicyIsNamedByItsBuilderCallNotByAProperty() {
    OutboxRelayCustomizer policy =
        relay ->
            relay.retryPolicy(
                "order.placed",
                new dev.jooqoutbox.relay.RetryPolicy(
                    0, java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1)));
    runner()
        .withBean(One.class)
        .withBean(OutboxRelayCustomizer.class, () -> policy)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context)
                  .getFailure()
                  .hasMessageContaining("retryPolicy(order.placed).maxAttempts must be between")
                  .hasMessageNotContaining("jooq-outbox.relay.max-attempts");
            });
  }

  @Test
  void aDurationThatIsNoDurationIsNamed() {
    runner()
        .withBean(One.class)
        .withPropertyValues("jooq-outbox.relay.lease=soon")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "Failed to bind properties under 'jooq-outbox.relay.lease'"));
  }

  @Test
  void everyRelayPropertyIsNamedWhenOutOfRange() {
    String[][] cases = {
      {"max-run=0", "jooq-outbox.relay.max-run must be between"},
      {"max-in-flight=0", "jooq-outbox.relay.max-in-flight must be between"},
      {"concurrency=0", "jooq-outbox.relay.concurrency must be between"},
      {"lease=0s", "jooq-outbox.relay.lease must be a positive duration"},
      {"max-attempts=0", "jooq-outbox.relay.max-attempts must be between"},
      {"max-handling-time=0s", "jooq-outbox.relay.max-handling-time must be a positive"},
      {"retention=0s", "jooq-outbox.relay.retention must be a positive"},
      {"purge-interval=0s", "jooq-outbox.relay.purge-interval must be a positive"},
      {"poll-interval=0s", "jooq-outbox.relay.poll-interval must be a positive"},
      {"gauge-interval=0s", "jooq-outbox.relay.gauge-interval must be a positive"},
      {"shutdown-timeout=0s", "jooq-outbox.relay.shutdown-timeout must be a positive"},
      {"backoff.initial=0s", "jooq-outbox.relay.backoff.initial must be a positive"},
      {
        "backoff.max=1ms",
        "jooq-outbox.relay.backoff.max must be at least jooq-outbox.relay.backoff.initial, was"
            + " PT0.001S < PT1S"
      },
    };
    for (String[] c : cases) {
      runner()
          .withBean(One.class)
          .withPropertyValues("jooq-outbox.relay." + c[0])
          .run(failsWith(c[1]));
    }
  }
}
