package dev.jooqoutbox.cli.demo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/** What the demo runs; validated by {@link DemoCommand}. */
record DemoSettings(
    int orders,
    int customers,
    int writers,
    int relays,
    int handlerThreads,
    int rate,
    double failRate,
    double duplicateRate,
    Duration timeout,
    boolean wipe) {

  /**
   * Connections for the run. On a server: one per writer, and per relay one for its worker, its
   * PostgreSQL listener and each handler thread, plus the demo's own. On SQLite: one. SQLite lets
   * one transaction write at a time; a single pooled connection hands the file to the writers, the
   * relays and the ledger in turn, where several connections would poll for the write lock
   * (SQLite's busy handler sleeps between polls, which costs more than the waiting itself). No
   * thread of the demo or the relay holds a connection while it waits for another.
   */
  int poolSize(boolean sqlite) {
    return sqlite ? 1 : writers + relays * (handlerThreads + 2) + 2;
  }

  /** The line that says what the run will do, below the database's. */
  void describe(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "  %,d orders for %,d customers from %d writer%s%s; %d relay%s with %d handler thread%s"
            + " each%n",
        orders,
        customers,
        writers,
        writers == 1 ? "" : "s",
        rate == 0 ? "" : String.format(Locale.ROOT, " at %,d/s", rate),
        relays,
        relays == 1 ? "" : "s",
        handlerThreads,
        handlerThreads == 1 ? "" : "s");
  }
}
