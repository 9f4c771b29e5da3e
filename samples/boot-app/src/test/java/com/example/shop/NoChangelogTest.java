package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Why docs/spring-boot.md asks an application without a changelog to set {@code
 * spring.liquibase.enabled=false}: jooq-outbox brings liquibase-core, so Boot's Liquibase runs and
 * stops the start for want of a changelog, and jooq-outbox's failure analysis says which property to
 * set; with the property the same application starts.
 */
@ExtendWith(OutputCaptureExtension.class)
class NoChangelogTest {

  private static Map<String, Object> properties() {
    Map<String, Object> properties = new HashMap<>();
    DynamicPropertyRegistry registry = (name, value) -> properties.put(name, value.get());
    ShopDatabase.register(registry);
    properties.put("server.port", "0");
    properties.put("spring.sql.init.mode", "always");
    properties.put("spring.sql.init.schema-locations", "classpath:shop-schema.sql");
    return properties;
  }

  @Test
  void bootsLiquibaseWithoutAChangelogStopsTheStartAndSaysWhatToSet(CapturedOutput output) {
    assertThatThrownBy(
            () -> new SpringApplicationBuilder(ShopApplication.class).properties(properties()).run())
        .hasStackTraceContaining("db.changelog-master.yaml");
    // Boot's failure analysis, as the console shows it: jooq-outbox's, not Boot's generic one.
    assertThat(output.getAll())
        .contains("APPLICATION FAILED TO START")
        .contains("jooq-outbox brings Liquibase to the class path")
        .contains("set spring.liquibase.enabled=false");
  }

  @Test
  void theDocumentedPropertyLetsItStart() {
    Map<String, Object> properties = properties();
    properties.put("spring.liquibase.enabled", "false");
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class).properties(properties).run()) {
      assertThat(context.isRunning()).isTrue();
    }
  }
}
