package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxAdmin;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With a management port of its own ({@code management.server.port}), the console is served there
 * and not on the application's port, read-only unless actions are turned on, and still behind the
 * application's security.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.liquibase.change-log=classpath:db/shop-changelog.xml",
      "management.server.port=0",
      "jooq-outbox.console.enabled=true"
    })
@Import(ShopDatabase.DropOnClose.class)
class OutboxConsoleOnManagementPortTest {

  private static final String CONSOLE = "/actuator/outbox-console";

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry);
  }

  @Autowired Environment environment;
  @Autowired OutboxAdmin admin;

  @Test
  void theConsoleIsOnTheManagementPortOnlyBehindTheApplicationsSecurityAndReadOnly()
      throws Exception {
    int management = environment.getRequiredProperty("local.management.port", Integer.class);
    int application = environment.getRequiredProperty("local.server.port", Integer.class);
    assertThat(management).isNotEqualTo(application);

    assertThat(Operator.anonymousAt(management).get(CONSOLE + "/").statusCode()).isEqualTo(401);
    Operator operator = Operator.at(management);
    var overview = operator.get(CONSOLE + "/api/overview");
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(new ObjectMapper().readTree(overview.body()).get("actions").asBoolean()).isFalse();
    assertThat(Operator.at(application).get(CONSOLE + "/").statusCode()).isEqualTo(404);

    var pause =
        operator.post(
            CONSOLE + "/api/topics/pause",
            "{\"topic\":\"order.placed\"}",
            "application/json",
            operator.origin());
    assertThat(pause.statusCode()).as("actions are off unless a property turns them on").isEqualTo(403);
    assertThat(admin.pausedTopics()).isEmpty();
  }
}
