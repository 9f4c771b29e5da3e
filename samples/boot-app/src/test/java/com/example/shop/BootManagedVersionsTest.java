package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import liquibase.util.LiquibaseUtil;
import org.junit.jupiter.api.Test;

/**
 * The application runs on the Liquibase, jOOQ and Jackson its Boot parent manages (passed in by the
 * pom), not on the versions jooq-outbox is built with: what docs/spring-boot.md's version table
 * says is tested here.
 */
class BootManagedVersionsTest {

  @Test
  void liquibaseJooqAndJacksonAreTheOnesBootManages() {
    assertThat(LiquibaseUtil.getBuildVersion())
        .isEqualTo(System.getProperty("boot.managed.liquibase"));
    assertThat(org.jooq.Constants.FULL_VERSION.replaceFirst("^(\\d+\\.\\d+\\.\\d+).*", "$1"))
        .isEqualTo(System.getProperty("boot.managed.jooq"));
    assertThat(com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString())
        .isEqualTo(System.getProperty("boot.managed.jackson"));
  }
}
