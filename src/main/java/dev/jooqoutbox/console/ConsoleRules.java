package dev.jooqoutbox.console;

import dev.jooqoutbox.console.ConsoleHttp.Answer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The rules every console keeps, on its own server or in a servlet container: what an action must
 * look like to be taken (a JSON body of bounded size, from no other origin), how a query is read,
 * and the headers of every answer.
 */
final class ConsoleRules {

  /** The largest request body: an action names at most a page of ids. */
  static final int MAX_BODY = 1 << 20;

  /** The headers of every answer: the page loads nothing from elsewhere and is framed nowhere. */
  static final Map<String, String> HEADERS =
      Map.of(
          "Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
              + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
          "X-Content-Type-Options",
          "nosniff",
          "X-Frame-Options",
          "DENY",
          "Referrer-Policy",
          "no-referrer",
          "Cache-Control",
          "no-store");

  private ConsoleRules() {}

  /** An action's body once the rules let it in, or the answer that refuses it. */
  record Action(byte[] body, Answer refused) {}

  /**
   * An action (a POST) as the rules see it. A page of another site can send a form, which is never
   * JSON; a script of another site sends its own {@code Origin}. The origin is compared by host and
   * port with the {@code Host} the request came to, so a proxy that ends TLS in front of the
   * console does not turn the console's own page away. The body is read only when the rest passed.
   */
  static Action action(String origin, String host, String contentType, InputStream body)
      throws IOException {
    if (origin != null && !sameAuthority(origin, host)) {
      return new Action(null, Answer.text(403, "a request from another origin"));
    }
    if (contentType == null
        || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      return new Action(null, Answer.text(415, "an action is a JSON body"));
    }
    byte[] bytes = body.readNBytes(MAX_BODY + 1);
    return bytes.length > MAX_BODY
        ? new Action(null, Answer.text(413, "a body of at most " + MAX_BODY + " bytes"))
        : new Action(bytes, null);
  }

  private static boolean sameAuthority(String origin, String host) {
    if (host == null) {
      return false;
    }
    try {
      String authority = new URI(origin).getRawAuthority();
      return authority != null && authority.equalsIgnoreCase(host);
    } catch (URISyntaxException e) {
      return false; // "null" (a sandboxed frame) or garbage: not ours
    }
  }

  /** The query's parameters, decoded; each name once (the first), at most 20 of them. */
  static Map<String, String> query(String raw) {
    Map<String, String> params = new HashMap<>();
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
}
