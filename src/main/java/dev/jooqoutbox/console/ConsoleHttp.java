package dev.jooqoutbox.console;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's rules for every request, before any route: its token (header or cookie), the Host
 * it is reached by, a POST's origin and body, and the headers of every answer. The routes ({@link
 * ConsoleApi}) see only requests that passed.
 */
final class ConsoleHttp {

  private static final Logger log = LoggerFactory.getLogger(OutboxConsole.class);
  static final String COOKIE = "outbox_console";

  private final byte[] token;
  private final InetSocketAddress bound;

  ConsoleHttp(String token, InetSocketAddress bound) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.bound = bound;
  }

  /** A request as the routes see it. */
  record Request(String method, String path, Map<String, String> query, byte[] body) {}

  /** An answer: a status, a content type and a body. */
  record Answer(int status, String type, byte[] body) {

    static Answer text(int status, String text) {
      return new Answer(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The routes behind the rules. */
  interface Routes {
    Answer answer(Request request);
  }

  void handle(HttpExchange exchange, Routes routes) throws IOException {
    try (exchange) {
      Answer answer;
      try {
        answer = check(exchange, routes);
      } catch (RuntimeException e) {
        log.warn("outbox console: {} {} failed", exchange.getRequestMethod(), path(exchange), e);
        answer = Answer.text(500, "the console could not answer: see its log");
      }
      send(exchange, answer);
    }
  }

  private Answer check(HttpExchange exchange, Routes routes) throws IOException {
    Headers in = exchange.getRequestHeaders();
    if (!hostIsOurs(in.getFirst("Host"))) {
      // A name that resolves to us is not ours (DNS rebinding): only the address we listen on.
      return Answer.text(421, "unknown host");
    }
    String method = exchange.getRequestMethod();
    Map<String, String> query = ConsoleRules.query(exchange.getRequestURI().getRawQuery());
    if (method.equals("GET") && query.containsKey("token")) {
      if (!tokenMatches(query.get("token"))) {
        return Answer.text(401, "wrong token");
      }
      // The token leaves the address bar: it lives on in a cookie only this origin sends.
      exchange
          .getResponseHeaders()
          .add(
              "Set-Cookie",
              COOKIE + "=" + query.get("token") + "; Path=/; HttpOnly; SameSite=Strict");
      exchange.getResponseHeaders().add("Location", "/");
      return new Answer(303, "text/plain; charset=utf-8", new byte[0]);
    }
    if (!tokenMatches(presented(in))) {
      return Answer.text(401, "this console needs its token: open the address it printed");
    }
    byte[] body = new byte[0];
    if (method.equals("POST")) {
      ConsoleRules.Action action =
          ConsoleRules.action(
              in.getFirst("Origin"),
              in.getFirst("Host"),
              in.getFirst("Content-Type"),
              exchange.getRequestBody());
      if (action.refused() != null) {
        return action.refused();
      }
      body = action.body();
    } else if (!method.equals("GET")) {
      return Answer.text(405, "GET or POST");
    }
    return routes.answer(new Request(method, path(exchange), query, body));
  }

  private boolean hostIsOurs(String host) {
    if (host == null) {
      return false;
    }
    int port = bound.getPort();
    if (!bound.getAddress().isLoopbackAddress()) {
      return true; // the operator chose to listen elsewhere, and names the host to reach it by
    }
    return host.equals("127.0.0.1:" + port) || host.equals("localhost:" + port);
  }

  private boolean tokenMatches(String presented) {
    return presented != null
        && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8));
  }

  private static String presented(Headers in) {
    String auth = in.getFirst("Authorization");
    if (auth != null && auth.startsWith("Bearer ")) {
      return auth.substring("Bearer ".length()).trim();
    }
    for (String cookies : in.getOrDefault("Cookie", java.util.List.of())) {
      for (String cookie : cookies.split(";")) {
        String c = cookie.trim();
        if (c.startsWith(COOKIE + "=")) {
          return c.substring(COOKIE.length() + 1);
        }
      }
    }
    return null;
  }

  private static String path(HttpExchange exchange) {
    return exchange.getRequestURI().getRawPath();
  }

  private static void send(HttpExchange exchange, Answer answer) throws IOException {
    Headers out = exchange.getResponseHeaders();
    out.set("Content-Type", answer.type());
    ConsoleRules.HEADERS.forEach(out::set);
    byte[] body = answer.body();
    exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }
}
