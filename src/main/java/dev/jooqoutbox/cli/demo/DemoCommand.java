package dev.jooqoutbox.cli.demo;

import dev.jooqoutbox.OutboxException;
import dev.jooqoutbox.internal.cli.JdbcUrls;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jooq.exception.DataAccessException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code outbox demo}: a small orders service and a ledger consumer on a real database, with a
 * progress bar and a PASS/FAIL summary checked against the database.
 *
 * <p>Exit codes, as for the other commands: 0 PASS, 1 FAIL or a failure to run (the reason on
 * stderr), 2 bad arguments.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs a small orders service on the outbox and checks the result: PASS or FAIL.",
      "Writer threads place orders, each order and its order.placed message in one transaction"
          + " (aggregate = customer); relays deliver the messages to a ledger that books each"
          + " order in its own transaction, guarded by the inbox. Ends with throughput, latency"
          + " and invariants checked in the database: every order booked exactly once, in"
          + " placement order per customer, nothing left pending.",
      "",
      "Without --db it uses the SQLite file outbox-demo.db in the working directory (created if"
          + " missing).",
      "",
      "The demo WIPES what it works on: it deletes every row of outbox_message and inbox_message"
          + " and drops and recreates its tables outbox_demo_order and outbox_demo_ledger_entry"
          + " (after migrating the outbox tables). Give --db only a database meant for the demo;"
          + " it refuses to run where the outbox holds rows it did not write, unless --wipe is"
          + " given.",
      ""
    },
    footer = {
      "",
      "Afterwards the operator commands work on what it left, for example:",
      "  ./outbox status --db jdbc:sqlite:outbox-demo.db"
    })
public final class DemoCommand implements Callable<Integer> {

  static final int PASSED = 0;
  static final int FAILED = 1;

  @Spec CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "URL",
      description =
          "JDBC URL: jdbc:sqlite:FILE, jdbc:postgresql://HOST:PORT/DB?user=U,"
              + " jdbc:mariadb://HOST:PORT/DB?user=U. Default: ${DEFAULT-VALUE}.",
      defaultValue = DemoDatabase.DEFAULT_URL)
  String url;

  @Option(
      names = "--orders",
      paramLabel = "N",
      description = "Orders to place (1-10,000,000). Default: ${DEFAULT-VALUE}.",
      defaultValue = "10000")
  int orders;

  @Option(
      names = "--customers",
      paramLabel = "C",
      description =
          "Customers the orders are spread over (1-1,000,000); with at least as many orders,"
              + " every customer has one. Default: ${DEFAULT-VALUE}.",
      defaultValue = "300")
  int customers;

  @Option(
      names = "--relays",
      paramLabel = "K",
      description = "Relays delivering concurrently (1-32). Default: ${DEFAULT-VALUE}.",
      defaultValue = "1")
  int relays;

  @Option(
      names = "--writers",
      paramLabel = "W",
      description = "Threads placing orders (1-64). Default: ${DEFAULT-VALUE}.",
      defaultValue = "4")
  int writers;

  @Option(
      names = "--handler-threads",
      paramLabel = "H",
      description =
          "Handler threads per relay: messages of different customers are booked in parallel"
              + " (1-64). Default: ${DEFAULT-VALUE}.",
      defaultValue = "4")
  int handlerThreads;

  @Option(
      names = "--rate",
      paramLabel = "R",
      description =
          "Orders per second, all writers together; 0 places them as fast as the database takes"
              + " them. Below what the relays keep up with, the latency shows delivery rather than"
              + " a queue. Default: ${DEFAULT-VALUE}.",
      defaultValue = "0")
  int rate;

  @Option(
      names = "--fail-rate",
      paramLabel = "F",
      description =
          "Chance (0-0.9) that the ledger fails a delivery before booking, so retries and"
              + " backoff show. Default: ${DEFAULT-VALUE}.",
      defaultValue = "0")
  double failRate;

  @Option(
      names = "--duplicate-rate",
      paramLabel = "D",
      description =
          "Chance (0-0.9) that the ledger fails after booking, as if the relay crashed before"
              + " marking the message sent: the message comes again and the inbox drops the"
              + " copy. Default: ${DEFAULT-VALUE}.",
      defaultValue = "0")
  double duplicateRate;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description = "Longest wait for delivery, such as 90s or 10m. Default: ${DEFAULT-VALUE}.",
      defaultValue = "10m",
      converter = TimeoutConverter.class)
  Duration timeout;

  @Option(
      names = "--publish",
      paramLabel = "BROKER",
      description =
          "rabbitmq, kafka or nats: the relays publish the orders to this broker with the"
              + " library's publisher, and a consumer of the broker in the demo books them in the"
              + " ledger (inbox-guarded: a copy is dropped). The broker clients are not in the"
              + " CLI jar: put the client's jar on the class path (amqp-client, kafka-clients or"
              + " jnats), for example java -cp jooq-outbox-VERSION-cli.jar:amqp-client-5.37.1.jar"
              + " dev.jooqoutbox.cli.OutboxCli demo --publish rabbitmq. Without it the demo"
              + " stops and names the jar; so it does, at once, when the broker does not answer.")
  String publish;

  @Option(
      names = "--broker",
      paramLabel = "ADDRESS",
      description =
          "With --publish: the broker's address. Defaults: amqp://guest:guest@127.0.0.1:5672"
              + " (rabbitmq), 127.0.0.1:9092 (kafka, bootstrap servers),"
              + " nats://127.0.0.1:4222 (nats).")
  String brokerAddress;

  @Option(names = "--no-progress", description = "No progress bar; just the summary.")
  boolean noProgress;

  @Option(
      names = "--wipe",
      description =
          "Run even where outbox_message or inbox_message hold rows the demo did not write"
              + " (they are deleted).")
  boolean wipe;

  @Override
  public Integer call() {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    try {
      return run(out);
    } catch (DemoException | OutboxException e) {
      return fail(e.getMessage());
    } catch (DataAccessException e) {
      SQLException cause = e.getCause(SQLException.class);
      return fail("database error: " + (cause != null ? cause.getMessage() : e.getMessage()));
    } finally {
      out.flush();
    }
  }

  private int run(PrintWriter out) {
    DemoSettings settings =
        new DemoSettings(
            orders,
            customers,
            Math.min(writers, customers),
            relays,
            handlerThreads,
            rate,
            failRate,
            duplicateRate,
            timeout,
            wipe);
    Path sqliteFile = JdbcUrls.sqliteFile(url);
    boolean newFile = sqliteFile != null && !Files.exists(sqliteFile);
    DemoBrokers.Kind kind = publish == null ? null : brokerKind();
    // Before the demo touches the database: an unreachable broker stops it at once. The broker
    // closes first, its consumer still books in the database until then.
    try (DemoDatabase db = DemoDatabase.open(url, settings.poolSize(sqliteFile != null));
        DemoBroker broker =
            kind == null ? null : DemoBrokers.open(kind, brokerAddress, OrderPlaced.TOPIC)) {
      out.println(
          sqliteFile != null
              ? "outbox demo on the SQLite file "
                  + sqliteFile.toAbsolutePath()
                  + (newFile ? " (new)" : "")
              : "outbox demo on " + db.displayUrl());
      settings.describe(out);
      if (kind != null) {
        out.println(
            "  publishing through "
                + kind.displayName
                + " at "
                + DemoBrokers.withoutPassword(
                    brokerAddress != null ? brokerAddress : kind.defaultAddress));
      }
      out.flush();
      DemoRun demo = new DemoRun(db, settings, progressMode(), spec.commandLine().getErr(), broker);
      demo.prepare();
      out.println(
          "  migrated the outbox; emptied outbox_message and inbox_message; recreated the demo"
              + " tables");
      out.flush();
      DemoReport report = demo.run();
      report.print(out);
      out.println();
      out.println("Look at what it left behind with the operator commands:");
      String dbArg = shellQuoted(url.equals(DemoDatabase.DEFAULT_URL) ? url : db.displayUrl());
      out.println("  ./outbox status --db " + dbArg);
      out.println("  ./outbox dead-letters --db " + dbArg);
      return report.passed() ? PASSED : FAILED;
    }
  }

  private ProgressBar.Mode progressMode() {
    if (noProgress) {
      return ProgressBar.Mode.SILENT;
    }
    return System.console() != null ? ProgressBar.Mode.TERMINAL : ProgressBar.Mode.LINES;
  }

  private void validate() {
    requireRange("--orders", orders, 1, 10_000_000);
    requireRange("--customers", customers, 1, 1_000_000);
    requireRange("--relays", relays, 1, 32);
    requireRange("--writers", writers, 1, 64);
    requireRange("--handler-threads", handlerThreads, 1, 64);
    requireRange("--rate", rate, 0, 1_000_000);
    requireRate("--fail-rate", failRate);
    requireRate("--duplicate-rate", duplicateRate);
    if (publish != null) {
      brokerKind();
      if (failRate > 0 || duplicateRate > 0) {
        throw new ParameterException(
            spec.commandLine(),
            "--fail-rate and --duplicate-rate inject trouble into the relay's handler; with"
                + " --publish the relay's handler is the broker's publisher: leave them out");
      }
    } else if (brokerAddress != null) {
      throw new ParameterException(spec.commandLine(), "--broker goes with --publish");
    }
    if (timeout.isZero()) {
      throw new ParameterException(spec.commandLine(), "--timeout must be more than 0s");
    }
  }

  private DemoBrokers.Kind brokerKind() {
    for (DemoBrokers.Kind kind : DemoBrokers.Kind.values()) {
      if (kind.option().equals(publish)) {
        return kind;
      }
    }
    throw new ParameterException(
        spec.commandLine(), "--publish must be rabbitmq, kafka or nats, was '" + publish + "'");
  }

  private void requireRange(String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw new ParameterException(
          spec.commandLine(),
          String.format(
              Locale.ROOT, "%s must be between %,d and %,d, was %,d", option, min, max, value));
    }
  }

  private void requireRate(String option, double value) {
    if (!(value >= 0 && value <= 0.9)) {
      throw new ParameterException(
          spec.commandLine(), option + " must be between 0 and 0.9, was " + value);
    }
  }

  private int fail(String message) {
    PrintWriter err = spec.commandLine().getErr();
    err.println(spec.qualifiedName() + ": " + message);
    err.flush();
    return FAILED;
  }

  private static String shellQuoted(String text) {
    return text.matches("[A-Za-z0-9:/._=@%+,-]+") ? text : "'" + text.replace("'", "'\\''") + "'";
  }
}
