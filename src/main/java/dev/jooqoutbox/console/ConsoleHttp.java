package dev.jooqoutbox.console;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Locale;
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

  /** The largest request body: an action names at most a page of ids. */
  static final int MAX_BODY = 1 << 20;

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
    Map<String, String> query = query(exchange.getRequestURI());
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
      String origin = in.getFirst("Origin");
      if (origin != null && !origin.equals(ourOrigin(in.getFirst("Host")))) {
        return Answer.text(403, "a request from another origin");
      }
      String type = in.getFirst("Content-Type");
      if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
        return Answer.text(415, "an action is a JSON body");
      }
      body = readBody(exchange.getRequestBody());
      if (body == null) {
        return Answer.text(413, "a body of at most " + MAX_BODY + " bytes");
      }
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

  private static String ourOrigin(String host) {
    return "http://" + host;
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

  private static byte[] readBody(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    return body.length > MAX_BODY ? null : body;
  }

  private static String path(HttpExchange exchange) {
    return exchange.getRequestURI().getRawPath();
  }

  /** The query's parameters, decoded; each name once (the first), at most 20 of them. */
  static Map<String, String> query(URI uri) {
    Map<String, String> params = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    String[] pairs = raw.split("&", 21);
    for (int i = 0; i < Math.min(pairs.length, 20); i++) {
      String[] kv = pairs[i].split("=", 2);
      String name = URLDecoder.decode(kv[0], StandardCharsets.UTF_8);
      String value = kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "";
      params.putIfAbsent(name, value);
    }
    return params;
  }

  private static void send(HttpExchange exchange, Answer answer) throws IOException {
    Headers out = exchange.getResponseHeaders();
    out.set("Content-Type", answer.type());
    out.set(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    out.set("X-Content-Type-Options", "nosniff");
    out.set("X-Frame-Options", "DENY");
    out.set("Referrer-Policy", "no-referrer");
    out.set("Cache-Control", "no-store");
    byte[] body = answer.body();
    exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }
}
