package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxAdmin;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The operator console as docs/console.md sets it up in a Spring Boot application: turned on by
 * {@code jooq-outbox.console.enabled}, actions by {@code jooq-outbox.console.actions}, on the
 * management server (here the application's own port) at {@code /actuator/outbox-console/},
 * behind the application's security (OperatorSecurity), over real HTTP.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.liquibase.change-log=classpath:db/shop-changelog.xml",
      "jooq-outbox.console.enabled=true",
      "jooq-outbox.console.actions=true"
    })
@Import(ShopDatabase.DropOnClose.class)
class OutboxConsoleTest {

  private static final String CONSOLE = "/actuator/outbox-console";
  private static final ObjectMapper JSON = new ObjectMapper();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    ShopDatabase.register(registry);
  }

  @Autowired Environment environment;
  @Autowired OutboxAdmin admin;

  private int port() {
    return environment.getRequiredProperty("local.server.port", Integer.class);
  }

  @AfterEach
  void resume() {
    admin.resume("order.placed");
  }

  @Test
  void theConsoleIsBehindTheApplicationsSecurity() {
    assertThat(Operator.anonymousAt(port()).get(CONSOLE + "/").statusCode()).isEqualTo(401);
    assertThat(Operator.anonymousAt(port()).get(CONSOLE + "/api/overview").statusCode())
        .isEqualTo(401);
    HttpResponse<String> refused =
        Operator.anonymousAt(port())
            .post(CONSOLE + "/api/topics/pause", "{\"topic\":\"order.placed\"}", "application/json", null);
    assertThat(refused.statusCode()).isIn(401, 403);
    assertThat(admin.pausedTopics()).doesNotContainKey("order.placed");
  }

  @Test
  void theOperatorGetsThePageAndTheNumbersTheAdminReturns() throws Exception {
    Operator operator = Operator.at(port());
    HttpResponse<String> bare = operator.get(CONSOLE);
    assertThat(bare.statusCode()).as("the page's address ends with a slash").isEqualTo(302);
    assertThat(bare.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith(CONSOLE + "/"));

    HttpResponse<String> page = operator.get(CONSOLE + "/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(p -> assertThat(p).contains("default-src 'self'"));
    assertThat(page.body()).contains("console.js");
    assertThat(operator.get(CONSOLE + "/console.js").statusCode()).isEqualTo(200);

    JsonNode overview = JSON.readTree(operator.get(CONSOLE + "/api/overview").body());
    assertThat(overview.get("total").get("dead").asLong()).isEqualTo(admin.stats().dead());
    assertThat(overview.get("total").get("pending").asLong()).isEqualTo(admin.stats().pending());
    assertThat(overview.get("actions").asBoolean()).isTrue();
    assertThat(overview.get("payloads").asBoolean()).as("payloads hidden by default").isFalse();
  }

  @Test
  void anActionChangesTheDatabaseOnlyAsAJsonPostOfTheConsolesOwnOrigin() {
    Operator operator = Operator.at(port());
    String pause = "{\"topic\":\"order.placed\"}";
    assertThat(
            operator
                .post(CONSOLE + "/api/topics/pause", pause, "application/json", "http://evil.example")
                .statusCode())
        .isEqualTo(403);
    assertThat(operator.post(CONSOLE + "/api/topics/pause", pause, "text/plain", null).statusCode())
        .isEqualTo(415);
    assertThat(admin.pausedTopics()).doesNotContainKey("order.placed");

    HttpResponse<String> paused =
        operator.post(CONSOLE + "/api/topics/pause", pause, "application/json", operator.origin());
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(admin.pausedTopics()).containsKey("order.placed");

    assertThat(
            operator
                .post(CONSOLE + "/api/topics/resume", pause, "application/json", operator.origin())
                .statusCode())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(5)).until(() -> !admin.pausedTopics().containsKey("order.placed"));
  }
}
