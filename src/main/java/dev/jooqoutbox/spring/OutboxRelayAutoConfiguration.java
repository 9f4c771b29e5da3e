package dev.jooqoutbox.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.OutboxName;
import dev.jooqoutbox.relay.OutboxRelay;
import dev.jooqoutbox.relay.OutboxRelayBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import org.jooq.DSLContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The relay of a Spring Boot application: its handlers are the {@link OutboxListener} methods and
 * annotated handler beans of the context, its settings the {@code jooq-outbox.relay.*} properties,
 * then every {@link OutboxRelayCustomizer}. It starts when the context is ready and stops
 * gracefully before the DataSource closes.
 *
 * <p>The relay is a bean too (see {@link #outboxRelay}); with {@code
 * jooq-outbox.relay.auto-start=false} it is built but not started, for an application that drains
 * it on its own schedule.
 *
 * <p>Off with {@code jooq-outbox.relay.enabled=false} (a service that only writes), when the
 * application defines its own {@link OutboxRelay} bean, and, at startup, when the context has no
 * handler. Publishes its metrics to the application's {@link MeterRegistry} when there is one, and
 * traces its attempts on the application's {@link OpenTelemetry} bean when there is one (else on
 * {@code GlobalOpenTelemetry} when the API is present, see {@link
 * OutboxRelayBuilder#openTelemetry}).
 */
@AutoConfiguration(
    after = OutboxAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnBean(OutboxAutoConfiguration.class)
@ConditionalOnProperty(
    prefix = OutboxProperties.PREFIX + ".relay",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@ConditionalOnMissingBean(OutboxRelay.class)
public class OutboxRelayAutoConfiguration {

  @Bean
  OutboxRelayLifecycle outboxRelayLifecycle(
      ConfigurableListableBeanFactory beans,
      DSLContext dsl,
      OutboxProperties properties,
      ObjectProvider<ObjectMapper> mappers,
      Inbox inbox,
      ObjectProvider<PlatformTransactionManager> transactionManagers,
      ObjectProvider<OutboxRelayCustomizer> customizers,
      OutboxSchemaInitializer schema) {
    ObjectMapper mapper = OutboxAutoConfiguration.mapper(mappers);
    ListenerScanner scanner =
        new ListenerScanner(
            beans,
            mapper,
            new ListenerInbox(
                inbox,
                SpringDsl.joiningTransactions(dsl),
                () -> transactionManagers.getIfUnique(() -> null)));
    // The relay claims and settles outside the application's transactions; the mapper reads
    // payloads for OutboxMessage.payloadAs. Built, like the handlers found, once every singleton
    // exists: the properties first, then the handlers, then every customizer.
    DSLContext own = SpringDsl.ownTransactions(dsl);
    OutboxName name = properties.outboxName();
    return new OutboxRelayLifecycle(
        properties.getRelay().isAutoStart(),
        () -> {
          OutboxRelayBuilder relay =
              RelaySettings.apply(properties.getRelay(), OutboxRelay.builder(own))
                  .name(name)
                  .objectMapper(mapper);
          scanner.scan().forEach(h -> h.registerWith(relay));
          customizers.orderedStream().forEach(c -> c.customize(relay));
          return relay;
        });
  }

  /**
   * The relay: to read its topics, or, with {@code jooq-outbox.relay.auto-start=false}, to deliver
   * by calling {@link OutboxRelay#drainOnce} and {@link OutboxRelay#reconcileOnce} (a started relay
   * refuses those). A prototype: each lookup answers the relay of now, as the lifecycle above
   * builds a new one when a stopped context starts again (a CRaC restore, for example), so look it
   * up through an {@code ObjectProvider<OutboxRelay>} where that matters. Asking for it fails,
   * saying why, when the context has no handler.
   */
  @Bean
  @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
  OutboxRelay outboxRelay(OutboxRelayLifecycle lifecycle) {
    return lifecycle.injectable();
  }

  /** Micrometer is optional: only this class names it. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Metrics {

    @Bean
    OutboxRelayCustomizer outboxRelayMeterRegistry(ObjectProvider<MeterRegistry> registries) {
      return relay -> registries.ifUnique(relay::meterRegistry);
    }
  }

  /** OpenTelemetry is optional: only this class names it. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(OpenTelemetry.class)
  static class Tracing {

    @Bean
    OutboxRelayCustomizer outboxRelayOpenTelemetry(ObjectProvider<OpenTelemetry> openTelemetry) {
      return relay -> openTelemetry.ifUnique(relay::openTelemetry);
    }
  }
}
