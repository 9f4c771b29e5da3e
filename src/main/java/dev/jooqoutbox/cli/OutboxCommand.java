package dev.jooqoutbox.cli;

import dev.jooqoutbox.OutboxException;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.Callable;
import org.jooq.exception.DataAccessException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * What every subcommand of {@link OutboxCli} shares: its output streams, the clock, and the one
 * place where expected failures become a message on stderr and exit code 1.
 *
 * <p>The conversion lives here rather than in a handler set on the {@code CommandLine}, so a
 * command behaves the same however its {@code CommandLine} was built ({@code main}, a test, a
 * {@code new CommandLine(new OutboxCli())} elsewhere). Anything else is a bug: picocli prints its
 * stack trace and exits 1.
 */
abstract class OutboxCommand implements Callable<Integer> {

  /** Exit code of an expected failure: the message says what went wrong. */
  static final int FAILED = 1;

  @Spec CommandSpec spec;

  @ParentCommand OutboxCli root;

  /** Runs the command; returns its exit code or throws {@link CliException}. */
  abstract int execute();

  @Override
  public final Integer call() {
    try {
      return execute();
    } catch (CliException | OutboxException e) {
      return fail(e.getMessage());
    } catch (DataAccessException e) {
      SQLException cause = e.getCause(SQLException.class);
      return fail("database error: " + (cause != null ? cause.getMessage() : e.getMessage()));
    } finally {
      out().flush();
    }
  }

  int fail(String message) {
    PrintWriter err = spec.commandLine().getErr();
    err.println(spec.qualifiedName() + ": " + message);
    err.flush();
    return FAILED;
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  Clock clock() {
    return root.clock();
  }

  /** A clock stopped at {@code now}, so that one command reads every figure at the same moment. */
  static Clock fixedAt(Instant now) {
    return Clock.fixed(now, ZoneOffset.UTC);
  }
}
