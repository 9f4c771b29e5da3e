package dev.jooqoutbox.cli.demo;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Runs a command line through picocli and keeps what it printed. */
record DemoRunner(int exitCode, String out, String err) {

  static DemoRunner run(Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(command);
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new DemoRunner(code, out.toString(), err.toString());
  }

  /** The number printed after {@code label} in the summary, such as "retries" or "duplicates". */
  long summaryCount(String label) {
    Matcher m = Pattern.compile("(?m)^  " + label + "\\s+([0-9,]+)").matcher(out);
    if (!m.find()) {
      throw new AssertionError("no '" + label + "' line in:\n" + out);
    }
    return Long.parseLong(m.group(1).replace(",", ""));
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
