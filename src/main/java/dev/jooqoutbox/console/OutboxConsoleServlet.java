package dev.jooqoutbox.console;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.console.ConsoleHttp.Answer;
import dev.jooqoutbox.console.ConsoleHttp.Request;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The page of {@link OutboxConsole} as a servlet, for an application that serves it from its own
 * container (the Spring Boot auto-configuration mounts it on the management server when {@code
 * jooq-outbox.console.enabled=true}). Map it to a path and that path with {@code /*}.
 *
 * <p>What it guarantees:
 *
 * <ul>
 *   <li>It has no token of its own: who may see and act is the container's security to decide, and
 *       the path must be protected as the application protects its other operator endpoints.
 *   <li>An action is a POST of a JSON body of at most 1 MiB, from no other origin than the one the
 *       request came to; otherwise it is refused (403, 415, 413) and nothing changes. Actions are
 *       off unless turned on, and each one is logged with what it changed.
 *   <li>Everything the database holds is sent as JSON strings and rendered as text; payloads only
 *       when turned on. Every answer carries a content security policy that loads nothing from
 *       elsewhere and forbids framing.
 * </ul>
 */
public final class OutboxConsoleServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;
  private static final Logger log = LoggerFactory.getLogger(OutboxConsole.class);

  private final transient BacklogSamples samples;
  private final transient ConsoleApi api;

  /**
   * A console over {@code admin}.
   *
   * @param actions whether requeue, resolve, pause and resume are allowed
   * @param showPayloads whether a message's payload is shown (payloads carry personal data)
   * @param sampleEvery how often the backlog chart is sampled, 1 s to 5 min
   * @throws IllegalArgumentException when {@code sampleEvery} is outside those bounds
   */
  public OutboxConsoleServlet(
      OutboxAdmin admin, boolean actions, boolean showPayloads, Duration sampleEvery) {
    Objects.requireNonNull(admin, "admin");
    this.samples = new BacklogSamples(admin, Clock.systemUTC(), sampleEvery);
    this.api = new ConsoleApi(admin, samples, actions, showPayloads);
  }

  @Override
  public void init() {
    samples.start();
  }

  @Override
  public void destroy() {
    samples.close();
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = request.getPathInfo();
    if (path == null || path.isEmpty()) {
      // The page's files and reads are relative to it: its address ends with a slash.
      response.sendRedirect(request.getRequestURI() + "/");
      return;
    }
    Answer answer;
    try {
      answer = answer(request, path);
    } catch (RuntimeException e) {
      log.warn("outbox console: {} {} failed", request.getMethod(), path, e);
      answer = Answer.text(500, "the console could not answer: see its log");
    }
    ConsoleRules.HEADERS.forEach(response::setHeader);
    response.setStatus(answer.status());
    response.setContentType(answer.type());
    response.setContentLength(answer.body().length);
    response.getOutputStream().write(answer.body());
  }

  private Answer answer(HttpServletRequest request, String path) throws IOException {
    String method = request.getMethod();
    byte[] body = new byte[0];
    if (method.equals("POST")) {
      ConsoleRules.Action action =
          ConsoleRules.action(
              request.getHeader("Origin"),
              request.getHeader("Host"),
              request.getContentType(),
              request.getInputStream());
      if (action.refused() != null) {
        return action.refused();
      }
      body = action.body();
    } else if (!method.equals("GET")) {
      return Answer.text(405, "GET or POST");
    }
    return api.answer(
        new Request(method, path, ConsoleRules.query(request.getQueryString()), body));
  }
}
