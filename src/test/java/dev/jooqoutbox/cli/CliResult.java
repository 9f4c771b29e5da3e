package dev.jooqoutbox.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;

/** What one CLI invocation returned and printed. */
record CliResult(int exitCode, String out, String err) {

  /** Runs {@code args} the way an operator would, with commands reading time from {@code clock}. */
  static CliResult run(Clock clock, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode =
        OutboxCli.commandLine(clock)
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new CliResult(exitCode, out.toString(), err.toString());
  }

  static CliResult run(String... args) {
    return run(Clock.systemUTC(), args);
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
  }
}
