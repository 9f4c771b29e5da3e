package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jooqoutbox.MessageStatus;
import dev.jooqoutbox.OutboxAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;

/**
 * What a user of the shop meets over HTTP, with and without a changelog of its own: orders placed
 * through the web layer are booked once and in order per customer, and every request
 * docs/spring-boot.md documents for the {@code outbox} Actuator endpoint answers as it says.
 */
abstract class ShopContract {

  @Autowired Environment environment;
  @Autowired Ledger ledger;
  @Autowired OutboxAdmin admin;

  Http http;

  @BeforeEach
  void client() {
    http = new Http(environment.getRequiredProperty("local.server.port", Integer.class));
  }

  private String place(String orderId, String customer, boolean reject) {
    Http.Answer answer =
        http.post(
            "/orders" + (reject ? "?reject=true" : ""),
            new OrderPlaced(orderId, customer, 100));
    assertThat(answer.status()).as("POST /orders").isEqualTo(201);
    return answer.body().get("messageId").asText();
  }

  @Test
  void ordersPlacedOverHttpAreBookedOnceEachInOrderPerCustomer() {
    Map<String, List<String>> placed = new LinkedHashMap<>();
    for (int i = 0; i < 60; i++) {
      String customer = "customer-" + (i % 4);
      String orderId = "order-" + i;
      place(orderId, customer, false);
      placed.computeIfAbsent(customer, c -> new ArrayList<>()).add(orderId);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ledger.booked().stream().filter(o -> o.orderId().startsWith("order-")).count() >= 60);
    Map<String, List<String>> booked = new LinkedHashMap<>();
    ledger.booked().stream()
        .filter(o -> o.orderId().startsWith("order-"))
        .forEach(o -> booked.computeIfAbsent(o.customer(), c -> new ArrayList<>()).add(o.orderId()));
    assertThat(booked).isEqualTo(placed);
  }

  @Test
  void theOutboxEndpointAnswersEveryDocumentedRequestOverHttp() {
    List<String> dead = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      dead.add(place("rejected-" + i, "rejecting-" + i, true));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.deadCount() >= 3);

    // GET /actuator/health: dead letters alone do not take the service out of its load balancer.
    assertThat(http.get("/actuator/health").status()).isEqualTo(200);

    // GET /actuator/outbox: the totals and the counts per topic.
    Http.Answer stats = http.get("/actuator/outbox");
    assertThat(stats.status()).isEqualTo(200);
    assertThat(stats.body().get("dead").asLong()).isEqualTo(admin.stats().dead());
    assertThat(stats.body().get("topics").get("order.rejected").get("dead").asLong()).isEqualTo(3);
    assertThat(stats.body().get("oldestPendingAge").asText()).startsWith("PT");

    // GET /actuator/outbox/dead-letters: every dead letter, oldest first, without payloads.
    Http.Answer all = http.get("/actuator/outbox/dead-letters");
    assertThat(all.status()).isEqualTo(200);
    assertThat(ids(all.body())).containsExactlyElementsOf(dead);
    assertThat(all.body().get("deadLetters").get(0).has("payload")).isFalse();
    assertThat(all.body().get("deadLetters").get(0).get("lastError").asText())
        .contains("order rejected-0 refused");

    // ?topic=: only that topic's.
    assertThat(ids(http.get("/actuator/outbox/dead-letters?topic=order.rejected").body()))
        .containsExactlyElementsOf(dead);
    assertThat(ids(http.get("/actuator/outbox/dead-letters?topic=order.placed").body())).isEmpty();

    // ?limit= and ?afterSeq=: pages, each naming the next.
    JsonNode first = http.get("/actuator/outbox/dead-letters?limit=2").body();
    assertThat(ids(first)).containsExactlyElementsOf(dead.subList(0, 2));
    long next = first.get("next").asLong();
    JsonNode second = http.get("/actuator/outbox/dead-letters?limit=2&afterSeq=" + next).body();
    assertThat(ids(second)).containsExactly(dead.get(2));
    assertThat(second.get("next").isNull()).isTrue();

    // A limit or cursor out of range: 400, the caller's error, not the server's.
    for (String bad : List.of("limit=0", "limit=-1", "limit=100000", "afterSeq=-1")) {
      assertThat(http.get("/actuator/outbox/dead-letters?" + bad).status()).as(bad).isEqualTo(400);
    }

    // Any other section: 404.
    assertThat(http.get("/actuator/outbox/nothing-here").status()).isEqualTo(404);

    // POST /actuator/outbox/dead-letters/{id}: requeued, and this time booked.
    Http.Answer requeued = http.post("/actuator/outbox/dead-letters/" + dead.get(1), null);
    assertThat(requeued.status()).isEqualTo(200);
    assertThat(requeued.body().get("requeued").asBoolean()).isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> admin.message(dead.get(1)).orElseThrow().status() == MessageStatus.SENT);
    assertThat(ids(http.get("/actuator/outbox/dead-letters").body()))
        .containsExactly(dead.get(0), dead.get(2));
    Http.Answer unknown = http.post("/actuator/outbox/dead-letters/no-such-id", null);
    assertThat(unknown.body().get("requeued").asBoolean()).isFalse();
  }

  @Test
  void theOperatorConsoleIsOffUnlessAPropertyTurnsItOn() {
    int port = environment.getRequiredProperty("local.server.port", Integer.class);
    assertThat(Operator.at(port).get("/actuator/outbox-console/").statusCode()).isEqualTo(404);
    assertThat(Operator.at(port).get("/actuator/outbox-console/api/overview").statusCode())
        .isEqualTo(404);
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("deadLetters").forEach(letter -> ids.add(letter.get("id").asText()));
    return ids;
  }
}
