package dev.jooqoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator console over real HTTP on a real database: no request is answered without the token,
 * an action from another origin or without a JSON body is refused and changes nothing, the numbers
 * are the ones {@link OutboxAdmin} returns, what the database holds goes out as JSON strings,
 * filters are values and bounded, and the actions change the database.
 */
abstract class ConsoleContract extends ConsoleFixture {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private OutboxAdmin admin;
  private OutboxConsole console;

  ConsoleContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void startConsole() {
    admin = OutboxAdmin.create(db.dsl(), clock);
    console = OutboxConsole.builder(admin).actions(true).start();
  }

  @AfterEach
  void stopConsole() {
    console.close();
  }

  @Test
  void noRequestIsAnsweredWithoutItsTokenAndTheAddressItPrintsSetsACookie() throws Exception {
    assertThat(send(get("/api/overview").build()).statusCode()).isEqualTo(401);
    assertThat(send(get("/").build()).statusCode()).isEqualTo(401);
    assertThat(
            send(get("/api/overview").header("Authorization", "Bearer wrong-token-0123456789"))
                .statusCode())
        .isEqualTo(401);
    assertThat(send(get("/?token=wrong-token-0123456789").build()).statusCode()).isEqualTo(401);

    HttpResponse<String> visit = send(HttpRequest.newBuilder(URI.create(console.url())).build());
    assertThat(visit.statusCode()).isEqualTo(303);
    assertThat(visit.headers().firstValue("Location")).contains("/");
    String cookie = visit.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict");
    HttpResponse<String> page = send(get("/").header("Cookie", cookie.split(";")[0]).build());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<script src=\"console.js\"");
    assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
        .contains("script-src 'self'")
        .contains("frame-ancestors 'none'");
    assertThat(send(authorized("/console.js").build()).body()).contains("textContent");
  }

  @Test
  void anActionFromAnotherOriginOrWithoutAJsonBodyIsRefusedAndChangesNothing() throws Exception {
    HttpResponse<String> foreign =
        send(
            authorized("/api/topics/pause")
                .header("Origin", "http://evil.example")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"topic\":\"orders\"}"))
                .build());
    assertThat(foreign.statusCode()).isEqualTo(403);
    HttpResponse<String> form =
        send(
            authorized("/api/topics/pause")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("topic=orders"))
                .build());
    assertThat(form.statusCode()).isEqualTo(415);
    HttpResponse<String> noToken =
        send(
            get("/api/topics/pause")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"topic\":\"orders\"}"))
                .build());
    assertThat(noToken.statusCode()).isEqualTo(401);
    // A page of another site that reaches us through a name of its own (DNS rebinding).
    assertThat(statusWithHost("attacker.example:" + console.port())).isEqualTo(421);
    assertThat(statusWithHost("127.0.0.1:" + console.port())).isEqualTo(200);
    assertThat(admin.pausedTopics()).isEmpty();

    try (OutboxConsole readOnly = OutboxConsole.builder(admin).start()) {
      HttpResponse<String> refused =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + readOnly.port() + "/api/topics/pause"))
                  .header("Authorization", "Bearer " + readOnly.token())
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"topic\":\"orders\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).isEqualTo(403);
    }
    assertThat(admin.pausedTopics()).isEmpty();
  }

  @Test
  void theOverviewShowsWhatOutboxAdminReturns() throws Exception {
    write("a", "orders");
    write("b", "orders");
    writeRow("c", "payments");
    deadLetterNext("payments", "boom");
    admin.pause("payments");

    JsonNode o = getJson("/api/overview");

    OutboxStats orders = admin.statsByTopic().get("orders");
    assertThat(o.get("topics").get("orders").get("pending").asLong()).isEqualTo(orders.pending());
    assertThat(o.get("topics").get("payments").get("dead").asLong())
        .isEqualTo(admin.statsByTopic().get("payments").dead());
    assertThat(o.get("topics").get("payments").get("paused").asBoolean()).isTrue();
    assertThat(o.get("total").get("pending").asLong()).isEqualTo(admin.stats().pending());
    assertThat(o.get("paused").get("payments").asText())
        .isEqualTo(admin.pausedTopics().get("payments").toString());
    assertThat(o.get("actions").asBoolean()).isTrue();
    assertThat(o.get("payloads").asBoolean()).isFalse();
  }

  @Test
  void theOverviewAnswersFromTheLatestSampleWhichAnActionHereRefreshes() throws Exception {
    write("a", "orders");
    JsonNode first = getJson("/api/overview");
    assertThat(first.get("total").get("pending").asLong()).isEqualTo(1);

    write("b", "orders"); // by someone else: the overview shows it at the next sample
    JsonNode cached = getJson("/api/overview");
    assertThat(cached.get("countsAt").asText()).isEqualTo(first.get("countsAt").asText());
    assertThat(cached.get("total").get("pending").asLong()).isEqualTo(1);

    postJson("/api/topics/pause", Map.of("topic", "payments"));
    JsonNode after = getJson("/api/overview");
    assertThat(after.get("total").get("pending").asLong())
        .isEqualTo(admin.stats().pending())
        .isEqualTo(2);
    assertThat(Instant.parse(after.get("countsAt").asText()))
        .isAfterOrEqualTo(Instant.parse(first.get("countsAt").asText()));
  }

  @Test
  void markupInWhatTheDatabaseHoldsGoesOutAsAJsonString() throws Exception {
    String script = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    writeRow("<b>acct</b>", "orders");
    deadLetterNext("orders", script);

    HttpResponse<String> r = send(authorized("/api/dead-letters").build());

    assertThat(r.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    JsonNode letter = JSON.readTree(r.body()).get("letters").get(0);
    assertThat(letter.get("lastError").asText()).contains(script);
    assertThat(letter.get("aggregate").asText()).isEqualTo("<b>acct</b>");
  }

  @Test
  void filtersAreValuesAndBounded() throws Exception {
    writeRow("a", "orders");
    deadLetterNext("orders", "boom");

    JsonNode none = getJson("/api/dead-letters?topic=" + encode("orders' OR '1'='1"));
    assertThat(none.get("letters")).isEmpty();
    JsonNode one = getJson("/api/dead-letters?topic=orders&aggregate=a");
    assertThat(one.get("letters")).hasSize(1);
    for (String bad :
        List.of(
            "topic=" + "x".repeat(256),
            "limit=100000",
            "limit=-1",
            "after=abc",
            "from=yesterday")) {
      assertThat(send(authorized("/api/dead-letters?" + bad).build()).statusCode())
          .as(bad)
          .isEqualTo(400);
    }
    assertThat(send(authorized("/api/message?id=" + "y".repeat(256)).build()).statusCode())
        .isEqualTo(400);
    assertThat(send(authorized("/api/message?id=no-such-id").build()).statusCode()).isEqualTo(404);
    assertThat(admin.deadCount()).isOne();
  }

  @Test
  void requeueResolvePauseAndResumeChangeTheDatabase() throws Exception {
    String first = writeRow("a", "orders");
    writeRow("b", "orders");
    deadLetterNext("orders", "boom");
    deadLetterNext("orders", "boom");
    assertThat(postJson("/api/dead-letters/requeue", Map.of("ids", List.of(first))))
        .isEqualTo("{\"requeued\":1}");
    assertThat(admin.deadCount()).isOne();
    assertThat(postJson("/api/dead-letters/requeue", Map.of("topic", "orders")))
        .isEqualTo("{\"requeued\":1}");
    assertThat(admin.deadCount()).isZero();

    String unknown = writeRow("c", "payments");
    unknownNext("payments", "ref-1");
    JsonNode outcomes = getJson("/api/unknown");
    assertThat(outcomes.get("outcomes").get(0).get("id").asText()).isEqualTo(unknown);
    assertThat(postJson("/api/unknown/resolve", Map.of("id", unknown, "resolution", "SENT")))
        .isEqualTo("{\"resolved\":true}");
    assertThat(admin.message(unknown).orElseThrow().sentAt()).isNotNull();

    assertThat(postJson("/api/topics/pause", Map.of("topic", "orders")))
        .isEqualTo("{\"changed\":true}");
    assertThat(admin.pausedTopics()).containsOnlyKeys("orders");
    assertThat(postJson("/api/topics/resume", Map.of("topic", "orders")))
        .isEqualTo("{\"changed\":true}");
    assertThat(admin.pausedTopics()).isEmpty();
  }

  @Test
  void aMessagesPayloadIsShownOnlyWhenTheConsoleShowsPayloads() throws Exception {
    String id = write("a", "orders");
    JsonNode hidden = getJson("/api/message?id=" + encode(id));
    assertThat(hidden.get("status").asText()).isEqualTo("PENDING");
    assertThat(hidden.has("payload")).isFalse();
    assertThat(hidden.get("headers").get("source").asText()).isEqualTo(HEADER_MARKUP);
    assertThat(admin.message(id).orElseThrow().headers()).containsEntry("source", HEADER_MARKUP);

    try (OutboxConsole shows = OutboxConsole.builder(admin).showPayloads(true).start()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:" + shows.port() + "/api/message?id=" + encode(id)))
                  .header("Authorization", "Bearer " + shows.token())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(JSON.readTree(r.body()).get("payload").asText()).contains("\"n\"");
    }
  }

  private HttpRequest.Builder get(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + console.port() + path));
  }

  private HttpRequest.Builder authorized(String path) {
    return get(path).header("Authorization", "Bearer " + console.token());
  }

  private HttpResponse<String> send(HttpRequest request) throws Exception {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return send(request.build());
  }

  private JsonNode getJson(String path) throws Exception {
    HttpResponse<String> r = send(authorized(path).build());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private String postJson(String path, Object body) throws Exception {
    HttpResponse<String> r =
        send(
            authorized(path)
                .header("Content-Type", "application/json")
                .header("Origin", "http://127.0.0.1:" + console.port())
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return r.body();
  }

  /** The status of an authorized GET of the overview sent with {@code host} as its Host header. */
  private int statusWithHost(String host) throws Exception {
    // java.net.http sets the Host header itself: a socket sends the one a rebinding page would.
    try (Socket socket = new Socket("127.0.0.1", console.port())) {
      socket
          .getOutputStream()
          .write(
              ("GET /api/overview HTTP/1.1\r\nHost: "
                      + host
                      + "\r\nAuthorization: Bearer "
                      + console.token()
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String status =
          new BufferedReader(
                  new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      return Integer.parseInt(status.split(" ")[1]);
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
