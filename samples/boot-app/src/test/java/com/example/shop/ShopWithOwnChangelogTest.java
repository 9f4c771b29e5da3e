package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop with a changelog of its own that includes the outbox's: Boot's Liquibase (the version
 * Boot manages, no pin on Boot 3.5) creates both.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.liquibase.change-log=classpath:db/shop-changelog.xml")
@Import(ShopDatabase.DropOnClose.class)
class ShopWithOwnChangelogTest extends ShopContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry);
  }

  @Autowired DSLContext dsl;

  @Test
  void bootsLiquibaseRanTheShopsChangelogWithTheOutboxsIncluded() {
    var changesets =
        dsl.select(DSL.field(DSL.name("id"), String.class))
            .from(DSL.table(DSL.name("databasechangelog")))
            .fetch(0, String.class);
    assertThat(changesets).contains("shop-1").hasSizeGreaterThan(5);
  }
}
