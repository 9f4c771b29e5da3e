package dev.jooqoutbox.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.jooqoutbox.Inbox;
import dev.jooqoutbox.Outbox;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.internal.schema.LiquibaseVersion;
import dev.jooqoutbox.internal.wakeup.AfterCommit;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import javax.sql.DataSource;
import liquibase.integration.spring.SpringLiquibase;
import org.jooq.DSLContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * The writer's side of the outbox for a Spring Boot application with one {@link DSLContext}: an
 * {@link Outbox} whose writes join the Spring transaction of the calling thread (and are refused
 * outside one), an {@link Inbox}, an {@link OutboxAdmin}, and the outbox tables (see {@link
 * OutboxProperties.Schema}). Each bean backs off when the application defines its own.
 *
 * <p>Payloads are written and read with the application's Jackson 2 {@link ObjectMapper} bean when
 * it has exactly one (Spring Boot 3 makes one; on Boot 4 add {@code spring-boot-jackson2} or define
 * one), else with a mapper that registers the Jackson modules on the classpath.
 *
 * <p>When the application has one {@link OpenTelemetry} bean, writes record their trace context
 * through its propagators; without one, through {@code GlobalOpenTelemetry} when the API is present
 * (see {@link Outbox.Builder#openTelemetry}).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jooq.JooqAutoConfiguration",
      "org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration",
      "org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration",
      "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
      "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
      "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration"
    })
@ConditionalOnClass({DSLContext.class, TransactionAwareDataSourceProxy.class})
@ConditionalOnSingleCandidate(DSLContext.class)
@EnableConfigurationProperties(OutboxProperties.class)
public class OutboxAutoConfiguration {

  /**
   * Runs after every {@link SpringLiquibase} bean (the application's migrations), before the beans
   * below.
   */
  @Bean
  OutboxSchemaInitializer outboxSchemaInitializer(
      DSLContext dsl,
      OutboxProperties properties,
      ObjectProvider<SpringLiquibase> liquibase,
      ObjectProvider<DataSource> dataSources) {
    // The wrong Liquibase (Boot 4 manages 5.x) stops the start here, saying what to pin, also when
    // the application's own Liquibase ran the outbox's changesets and the outbox migrates nothing.
    LiquibaseVersion.require();
    liquibase.orderedStream().forEach(migrated -> {});
    DataSource dataSource =
        SpringDsl.dataSource(dsl).orElseGet(() -> dataSources.getIfUnique(() -> null));
    return new OutboxSchemaInitializer(
        properties.getSchema().getMigrate(),
        properties.outboxName(),
        SpringDsl.ownTransactions(dsl),
        dataSource);
  }

  @Bean
  @ConditionalOnMissingBean
  Outbox outbox(
      DSLContext dsl,
      OutboxProperties properties,
      ObjectProvider<ObjectMapper> mappers,
      ObjectProvider<WriterTracing> tracing,
      OutboxSchemaInitializer schema) {
    // Writes in Spring's transactions wake relays after the commit, not with a NOTIFY inside.
    AfterCommit.register(SpringAfterCommit.INSTANCE);
    Outbox.Builder outbox =
        Outbox.builder(SpringDsl.joiningTransactions(dsl))
            .name(properties.outboxName())
            .objectMapper(mapper(mappers))
            .notifyOnWrite(properties.getWrite().isNotifyRelays());
    tracing.ifAvailable(writer -> writer.configure(outbox));
    int maxPayloadBytes = properties.getWrite().getMaxPayloadBytes();
    try {
      outbox.maxPayloadBytes(maxPayloadBytes);
    } catch (IllegalArgumentException e) {
      // The builder's one refusal of this value, told with the property's name.
      throw new IllegalStateException(
          OutboxProperties.PREFIX
              + ".write.max-payload-bytes must be positive, was "
              + maxPayloadBytes);
    }
    return outbox.build();
  }

  @Bean
  @ConditionalOnMissingBean
  Inbox inbox(OutboxProperties properties, OutboxSchemaInitializer schema) {
    return new Inbox(Clock.systemUTC(), properties.outboxName());
  }

  /** On its own connections: an admin call inside a {@code @Transactional} method does not join. */
  @Bean
  @ConditionalOnMissingBean
  OutboxAdmin outboxAdmin(
      DSLContext dsl, OutboxProperties properties, OutboxSchemaInitializer schema) {
    return OutboxAdmin.create(
        SpringDsl.ownTransactions(dsl), Clock.systemUTC(), properties.outboxName());
  }

  /** OpenTelemetry is optional: only this class names it. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(OpenTelemetry.class)
  static class Tracing {

    @Bean
    WriterTracing outboxWriterOpenTelemetry(ObjectProvider<OpenTelemetry> openTelemetry) {
      return outbox -> openTelemetry.ifUnique(outbox::openTelemetry);
    }
  }

  /** The application's Jackson 2 mapper, or one with the modules on the classpath. */
  static ObjectMapper mapper(ObjectProvider<ObjectMapper> mappers) {
    return mappers.getIfUnique(() -> JsonMapper.builder().findAndAddModules().build());
  }
}
