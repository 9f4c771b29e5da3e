package dev.jooqoutbox.cli;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code outbox} operator tool: migrate the tables, look at the outbox, list and requeue dead
 * letters, purge. Runs from the shaded jar {@code target/jooq-outbox-VERSION-cli.jar} (classifier
 * {@code cli}) (or {@code ./outbox} in a clone); see docs/operations.md.
 *
 * <p>Exit codes: 0 done, 1 failed (one line on stderr says why), 2 bad arguments (picocli's usage
 * error).
 */
@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    versionProvider = OutboxCli.Version.class,
    description = "Operates a jooq-outbox database: migrate, status, dead letters, requeue, purge.",
    subcommands = {
      dev.jooqoutbox.cli.demo.DemoCommand.class,
      MigrateCommand.class,
      StatusCommand.class,
      DeadLettersCommand.class,
      RequeueCommand.class,
      UnknownCommand.class,
      ResolveCommand.class,
      PauseCommand.class,
      ResumeCommand.class,
      PurgeCommand.class,
      ConsoleCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Database URLs (--db):",
      "  jdbc:postgresql://HOST:PORT/DB?user=U&password=P",
      "  jdbc:mariadb://HOST:PORT/DB?user=U&password=P   (or jdbc:mysql://...)",
      "  jdbc:sqlite:FILE",
      "",
      "Exit codes: 0 done, 1 failed (the reason is on stderr), 2 bad arguments."
    })
public final class OutboxCli implements Runnable {

  /** Where the CLI's logback configuration lives: not logback.xml, which would configure users. */
  static final String LOGBACK_CONFIG = "dev/jooqoutbox/cli/logback-cli.xml";

  // JUL keeps loggers weakly: hold the configured ones, or their levels are lost with them.
  private static final Logger LIQUIBASE_LOG = Logger.getLogger("liquibase");
  private static final Logger LIQUIBASE_LOCK_LOG = Logger.getLogger("liquibase.lockservice");

  private final Clock clock;

  @Spec CommandSpec spec;

  public OutboxCli() {
    this(Clock.systemUTC());
  }

  /** For tests: commands read the time (ages, requeue, purge cutoff) from {@code clock}. */
  OutboxCli(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  public static void main(String[] args) {
    configureLogging();
    System.exit(commandLine(Clock.systemUTC()).execute(args));
  }

  /**
   * The command line an operator runs, commands reading the time from {@code clock}: a mistyped
   * option is reported as unknown (with picocli's suggestions) even when a required one is missing
   * with it, as {@code --dbb} for {@code --db}: picocli would name only the missing one.
   */
  static CommandLine commandLine(Clock clock) {
    CommandLine cl = new CommandLine(new OutboxCli(clock));
    CommandLine.IParameterExceptionHandler usage = cl.getParameterExceptionHandler();
    cl.setParameterExceptionHandler(
        (ex, args) -> usage.handleParseException(unknownOptionFirst(ex, args), args));
    return cl;
  }

  private static ParameterException unknownOptionFirst(ParameterException ex, String[] args) {
    if (!(ex instanceof CommandLine.MissingParameterException)) {
      return ex;
    }
    CommandLine command = ex.getCommandLine();
    List<String> unknown = new ArrayList<>();
    for (String arg : args) {
      String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (option.startsWith("-")
          && !option.matches("-[0-9.].*") // a negative number, an option's value
          && !option.equals("-")
          && !option.equals("--")
          && command.getCommandSpec().findOption(option) == null) {
        unknown.add(arg);
      }
    }
    return unknown.isEmpty() ? ex : new CommandLine.UnmatchedArgumentException(command, unknown);
  }

  /**
   * Keeps the terminal for the commands' own output: logback at WARN from the CLI's own file,
   * Liquibase's java.util.logging at WARNING. Must run before the first logger is created; an
   * operator's {@code -Dlogback.configurationFile} still wins.
   */
  static void configureLogging() {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", LOGBACK_CONFIG);
    }
    LIQUIBASE_LOG.setLevel(Level.WARNING);
    // `migrate --dry-run` on a fresh database: Liquibase "releases" a lock table it only printed,
    // and warns that it could not. The migration itself fails loudly if a lock really sticks.
    LIQUIBASE_LOCK_LOG.setLevel(Level.SEVERE);
  }

  Clock clock() {
    return clock;
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing required subcommand");
  }

  /** The version from the jar's manifest; a build from classes has none. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = OutboxCli.class.getPackage().getImplementationVersion();
      return new String[] {
        "outbox (jooq-outbox) " + (version == null ? "development build" : version)
      };
    }
  }
}
