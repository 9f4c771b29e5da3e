package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.OutboxSchema;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop without a changelog, with the one property docs/spring-boot.md names for it ({@code
 * spring.liquibase.enabled=false}): the outbox runs its own changelog at startup and delivers. The
 * shop's own table comes from Boot's SQL initialization here.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.liquibase.enabled=false",
      "spring.sql.init.mode=always",
      "spring.sql.init.schema-locations=classpath:shop-schema.sql"
    })
@Import(ShopDatabase.DropOnClose.class)
class ShopWithoutChangelogTest extends ShopContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry);
  }

  @Autowired DSLContext dsl;

  @Test
  void theOutboxMigratedItsOwnTables() {
    assertThat(OutboxSchema.isMigrated(dsl)).isTrue();
  }
}
