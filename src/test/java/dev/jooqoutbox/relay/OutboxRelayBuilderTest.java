package dev.jooqoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Settings are checked at {@code build()}, each refusal naming the setting and the bad value.
 * Building touches no database, so this needs none: a context without a connection per dialect.
 */
class OutboxRelayBuilderTest {

  private static final Duration ZERO = Duration.ZERO;
  private static final Duration NEGATIVE = Duration.ofMillis(-1);
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);

  private static OutboxRelayBuilder valid(SQLDialect dialect) {
    DSLContext dsl = DSL.using(dialect);
    return OutboxRelay.builder(dsl).handler("orders", m -> {});
  }

  static Stream<Arguments> invalidSettings() {
    return Stream.of(
        arguments("batchSize", "was 0", set(b -> b.batchSize(0))),
        arguments("batchSize", "was 10001", set(b -> b.batchSize(10_001))),
        arguments("pollInterval", "was PT0S", set(b -> b.pollInterval(ZERO))),
        arguments("pollInterval", "was PT-0.001S", set(b -> b.pollInterval(NEGATIVE))),
        arguments("pollInterval", "was null", set(b -> b.pollInterval(null))),
        arguments("lease", "was PT0S", set(b -> b.lease(ZERO))),
        arguments("lease", "was null", set(b -> b.lease(null))),
        arguments("maxAttempts", "was 0", set(b -> b.maxAttempts(0))),
        arguments("maxAttempts", "was -3", set(b -> b.maxAttempts(-3))),
        arguments("backoff initial", "was PT0S", set(b -> b.backoff(ZERO, Duration.ofSeconds(1)))),
        arguments("backoff initial", "was null", set(b -> b.backoff(null, Duration.ofSeconds(1)))),
        arguments(
            "backoff max", "was PT-0.001S", set(b -> b.backoff(Duration.ofSeconds(1), NEGATIVE))),
        arguments(
            "backoff max",
            "PT1S < PT2S",
            set(b -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))),
        arguments("retention", "was PT0S", set(b -> b.retention(ZERO))),
        arguments("purgeInterval", "was PT-0.001S", set(b -> b.purgeInterval(NEGATIVE))),
        arguments("handlerConcurrency", "was 0", set(b -> b.handlerConcurrency(0))),
        arguments("handlerConcurrency", "was 1001", set(b -> b.handlerConcurrency(1001))),
        arguments("shutdownTimeout", "was PT0S", set(b -> b.shutdownTimeout(ZERO))),
        arguments(
            "retryPolicy:",
            "topic payments has no handler",
            set(b -> b.retryPolicy("payments", new RetryPolicy(3, ONE_SECOND, ONE_SECOND)))),
        arguments(
            "retryPolicy(orders).maxAttempts",
            "was 0",
            set(b -> b.retryPolicy("orders", new RetryPolicy(0, ONE_SECOND, ONE_SECOND)))),
        arguments(
            "retryPolicy(orders).backoff max",
            "PT1S < PT2S",
            set(
                b ->
                    b.retryPolicy(
                        "orders", new RetryPolicy(3, Duration.ofSeconds(2), ONE_SECOND)))),
        arguments(
            "reconciler:",
            "topic payments has no handler",
            set(b -> b.reconciler("payments", (m, ref) -> Reconciliation.sent()))),
        arguments(
            "reconcileBackoff initial", "was PT0S", set(b -> b.reconcileBackoff(ZERO, ONE_SECOND))),
        arguments(
            "reconcileBackoff max",
            "PT1S < PT2S",
            set(b -> b.reconcileBackoff(Duration.ofSeconds(2), ONE_SECOND))));
  }

  private static Consumer<OutboxRelayBuilder> set(Consumer<OutboxRelayBuilder> setting) {
    return setting;
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("invalidSettings")
  void invalidSettingFailsAtBuildNamingIt(
      String setting, String value, Consumer<OutboxRelayBuilder> invalid) {
    for (SQLDialect dialect : dialects()) {
      OutboxRelayBuilder builder = valid(dialect);
      invalid.accept(builder); // the setter takes anything; build() judges
      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(setting + " ")
          .hasMessageContaining(value);
    }
  }

  @Test
  void noHandlerFailsAtBuild() {
    assertThatThrownBy(() -> OutboxRelay.builder(DSL.using(SQLDialect.SQLITE)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("handlers");
  }

  @Test
  void boundaryValuesAndDefaultsBuild() {
    for (SQLDialect dialect : dialects()) {
      valid(dialect).build().close();
      valid(dialect)
          .batchSize(1)
          .maxAttempts(1)
          .handlerConcurrency(1)
          .backoff(Duration.ofMillis(1), Duration.ofMillis(1))
          .pollInterval(Duration.ofMillis(1))
          .lease(Duration.ofMillis(1))
          .build()
          .close();
      valid(dialect).batchSize(10_000).handlerConcurrency(1_000).build().close();
    }
  }

  @Test
  void handlerTopicsAreCheckedWhenRegistered() {
    OutboxRelayBuilder builder = valid(SQLDialect.POSTGRES);
    assertThatThrownBy(() -> builder.handler("bad topic", m -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic");
    assertThatThrownBy(() -> builder.handler("", m -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topic");
    assertThatThrownBy(() -> builder.handler("orders", m -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already");
    assertThatThrownBy(() -> builder.handler("other", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("handler");
    assertThatThrownBy(() -> builder.clock(null)).hasMessageContaining("clock");
    assertThatThrownBy(() -> builder.claimTokens(null)).hasMessageContaining("claimTokens");
    assertThatThrownBy(() -> builder.objectMapper(null)).hasMessageContaining("objectMapper");
    assertThatThrownBy(() -> builder.meterRegistry(null)).hasMessageContaining("meterRegistry");
  }

  @ParameterizedTest
  @EnumSource(
      value = SQLDialect.class,
      names = {"POSTGRES", "MARIADB", "SQLITE"})
  void aClosedRelayNeverStarts(SQLDialect dialect) {
    OutboxRelay relay = valid(dialect).build();
    assertThat(relay.topics()).containsExactly("orders");
    relay.close();
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot restart after close");
    relay.close(); // idempotent
  }

  private static SQLDialect[] dialects() {
    return new SQLDialect[] {SQLDialect.POSTGRES, SQLDialect.MARIADB, SQLDialect.SQLITE};
  }
}
