package dev.jooqoutbox.console;

import com.sun.net.httpserver.HttpServer;
import dev.jooqoutbox.OutboxAdmin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A web page for operators over an {@link OutboxAdmin}: the backlog per topic, dead letters,
 * unknown outcomes, a message by id, paused topics; and, when actions are on, requeue, resolve,
 * pause and resume. It runs on the JDK's own HTTP server, on a port of its own.
 *
 * <p>What it guarantees:
 *
 * <ul>
 *   <li>It binds {@code 127.0.0.1} unless told otherwise, and answers no request without its token:
 *       {@code Authorization: Bearer TOKEN}, or the cookie a visit of {@link #url()} sets
 *       (HttpOnly, SameSite=Strict). The token is random (256 bits) unless given.
 *   <li>An action is a POST of a JSON body that carries the token and no foreign {@code Origin}: a
 *       page of another site can neither read the console nor act through it. Actions are off
 *       unless {@link Builder#actions} turns them on, and each one is logged with what it changed.
 *   <li>Everything the database holds is sent as JSON strings, and the page renders them as text.
 *       Payloads are not sent unless {@link Builder#showPayloads} turns them on.
 *   <li>Every filter is a value, bounded in length, never SQL.
 * </ul>
 *
 * <p>The backlog chart is sampled by the console itself, once every {@link Builder#sampleEvery}
 * while it runs, and covers at most the last hour.
 *
 * <p>To serve the same page in a servlet container, behind the application's own security, see
 * {@link OutboxConsoleServlet}.
 */
public final class OutboxConsole implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor;
  private final BacklogSamples samples;
  private final String token;

  private OutboxConsole(Builder b) {
    this.token = b.token != null ? b.token : randomToken();
    this.samples = new BacklogSamples(b.admin, b.clock, b.sampleEvery);
    try {
      this.server = HttpServer.create(b.address, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + b.address, e);
    }
    ConsoleHttp http = new ConsoleHttp(token, server.getAddress());
    ConsoleApi api = new ConsoleApi(b.admin, samples, b.actions, b.showPayloads);
    server.createContext("/", exchange -> http.handle(exchange, api));
    this.executor = Executors.newFixedThreadPool(4, ConsoleApi.daemonThreads());
    server.setExecutor(executor);
  }

  /** A builder of a console over {@code admin}. */
  public static Builder builder(OutboxAdmin admin) {
    return new Builder(Objects.requireNonNull(admin, "admin"));
  }

  /** Starts serving and sampling; returns this console. */
  public OutboxConsole start() {
    server.start();
    samples.start();
    return this;
  }

  /** The port it listens on (the one chosen by the system when it was asked for port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The token every request must carry. */
  public String token() {
    return token;
  }

  /**
   * The address to open in a browser: it carries the token once, and the page it redirects to keeps
   * it in a cookie.
   */
  public String url() {
    InetSocketAddress a = server.getAddress();
    String host =
        a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getAddress().getHostAddress();
    return "http://" + host + ":" + a.getPort() + "/?token=" + token;
  }

  /** Stops serving and sampling at once. */
  @Override
  public void close() {
    samples.close();
    server.stop(0);
    executor.shutdownNow();
  }

  private static String randomToken() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** How a console is set up; {@link #start()} builds and starts it. */
  public static final class Builder {

    private final OutboxAdmin admin;
    private InetSocketAddress address;
    private String token;
    private boolean actions;
    private boolean showPayloads;
    private Clock clock = Clock.systemUTC();
    private Duration sampleEvery = Duration.ofSeconds(15);

    private Builder(OutboxAdmin admin) {
      this.admin = admin;
      this.address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    /** Where it listens: {@code 127.0.0.1} and a free port unless told otherwise. */
    public Builder bind(InetSocketAddress address) {
      this.address = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * The token requests must carry, instead of a random one: at least 16 characters of {@code A-Z
     * a-z 0-9 - _ .}.
     *
     * @throws IllegalArgumentException when it is shorter or holds other characters
     */
    public Builder token(String token) {
      checkToken(token);
      this.token = token;
      return this;
    }

    /**
     * Checks {@code token} as {@link #token} does, for callers that check their input before they
     * build anything.
     *
     * @throws IllegalArgumentException when it is shorter than 16 characters or holds other
     *     characters than A-Z a-z 0-9 - _ .
     */
    public static void checkToken(String token) {
      if (token == null || token.length() < 16 || !token.matches("[A-Za-z0-9._-]+")) {
        throw new IllegalArgumentException(
            "a console token is at least 16 characters of A-Z a-z 0-9 - _ .");
      }
    }

    /** Whether requeue, resolve, pause and resume are allowed; off by default. */
    public Builder actions(boolean on) {
      this.actions = on;
      return this;
    }

    /** Whether a message's payload is shown; off by default (payloads carry personal data). */
    public Builder showPayloads(boolean on) {
      this.showPayloads = on;
      return this;
    }

    /** The clock of the backlog samples. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * How often the console samples the backlog for its chart: 1 s to 5 min, 15 s by default.
     *
     * @throws IllegalArgumentException when outside those bounds
     */
    public Builder sampleEvery(Duration every) {
      this.sampleEvery = BacklogSamples.checkEvery(every);
      return this;
    }

    /** Builds the console and starts it. */
    public OutboxConsole start() {
      return new OutboxConsole(this).start();
    }
  }
}
