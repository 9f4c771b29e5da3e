package dev.jooqoutbox.cli;

import dev.jooqoutbox.console.OutboxConsole;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "console",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the operator console, a web page over this outbox, until stopped (Ctrl-C).",
      "It listens on 127.0.0.1 unless --bind says otherwise, and prints the address to open: it"
          + " carries a token, random unless --token gives one, without which no request is"
          + " answered.",
      "Read only unless --actions allows requeue, resolve, pause and resume (the default of the"
          + " library and of Spring Boot too); payloads are hidden unless --show-payloads (they"
          + " may carry personal data)."
    })
final class ConsoleCommand extends OutboxCommand {

  @Mixin DatabaseOption database;

  @Option(names = "--port", paramLabel = "N", description = "The port (default: a free one).")
  int port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "The address to listen on (default 127.0.0.1).")
  String bind = "127.0.0.1";

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description = "The token requests must carry (at least 16 of A-Z a-z 0-9 - _ .).")
  String token;

  @Option(names = "--actions", description = "Allow requeue, resolve, pause and resume.")
  boolean actions;

  @Option(
      names = "--read-only",
      description = "No requeue, resolve, pause or resume (the default; refused with --actions).")
  boolean readOnly;

  @Option(names = "--show-payloads", description = "Show message payloads.")
  boolean showPayloads;

  @Override
  int execute() {
    // Bad arguments are usage errors (exit 2), found before the database is opened.
    if (actions && readOnly) {
      throw new ParameterException(
          spec.commandLine(), "--actions and --read-only exclude each other");
    }
    if (port < 0 || port > 65_535) {
      throw new ParameterException(spec.commandLine(), "--port is 0 to 65535, was " + port);
    }
    if (token != null) {
      try {
        OutboxConsole.Builder.checkToken(token);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--token: " + e.getMessage());
      }
    }
    InetSocketAddress address;
    try {
      address = new InetSocketAddress(InetAddress.getByName(bind), port);
    } catch (UnknownHostException e) {
      throw new ParameterException(spec.commandLine(), "--bind: no such address: " + bind);
    }
    try (CliDatabase db = CliDatabase.openMigrated(database)) {
      OutboxConsole.Builder builder =
          OutboxConsole.builder(db.admin(clock()))
              .bind(address)
              .actions(actions)
              .showPayloads(showPayloads);
      if (token != null) {
        builder.token(token);
      }
      try (OutboxConsole console = start(builder, address)) {
        out().println("outbox console for " + db.displayUrl() + (actions ? "" : " (read only)"));
        out().println("open " + console.url());
        out().flush();
        new CountDownLatch(1).await(); // until the JVM stops or this thread is interrupted
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 0;
    }
  }

  /** Starts the console; an address it cannot listen on is a failure of one line, not a trace. */
  private static OutboxConsole start(OutboxConsole.Builder builder, InetSocketAddress address) {
    try {
      return builder.start();
    } catch (UncheckedIOException e) {
      String reason = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
      throw new CliException(
          "cannot listen on "
              + address.getAddress().getHostAddress()
              + " port "
              + address.getPort()
              + ": "
              + reason
              + (e.getCause() instanceof java.net.BindException
                  ? " (is another program on that port? choose another --port, or leave it out for"
                      + " a free one)"
                  : ""));
    }
  }
}
