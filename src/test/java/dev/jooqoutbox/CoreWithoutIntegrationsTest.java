package dev.jooqoutbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core (migrate, write, relay, inbox) runs on what an application gets from our pom and the one
 * JDBC driver it adds, nothing else: a JVM of its own runs {@link CoreWithoutIntegrationsMain} on
 * the library's classes, the runtime dependencies reachable without passing an optional one
 * (target/runtime-dependency-tree.txt and runtime-dependencies.txt, written by the build) and
 * sqlite-jdbc.
 */
class CoreWithoutIntegrationsTest {

  /**
   * A line of {@code dependency:list}: {@code group:artifact:type[:classifier]:version:scope:path}.
   */
  private static final Pattern DEPENDENCY =
      Pattern.compile("^\\s*([^:\\s]+):([^:]+):.*:(compile|runtime):(\\S+)(.*)$");

  /** A line of {@code dependency:tree}: its indentation, then group and artifact. */
  private static final Pattern TREE_NODE =
      Pattern.compile("^((?:[|+\\\\ ]  )*[+\\\\]- )([^:]+):([^:]+):.*$");

  @Test
  void coreRunsWithoutAnyOptionalDependency(@TempDir Path dir) throws Exception {
    List<String> classPath = new ArrayList<>();
    classPath.add(location(OutboxSchema.class)); // the library: target/classes
    classPath.add(location(CoreWithoutIntegrationsMain.class)); // the main: target/test-classes
    Set<String> inherited = inheritedArtifacts();
    List<String> optional = new ArrayList<>();
    for (String line : Files.readAllLines(dependencyFile("runtime-dependencies.txt"), UTF_8)) {
      Matcher dependency = DEPENDENCY.matcher(line);
      if (!dependency.matches()) {
        continue;
      }
      String artifact = dependency.group(2);
      String key = dependency.group(1) + ":" + artifact;
      if (inherited.contains(key) || artifact.equals("sqlite-jdbc")) {
        classPath.add(dependency.group(4));
      } else {
        optional.add(key);
      }
    }
    // The files were read: the drivers and what hangs below Spring are optional, jOOQ is not.
    assertThat(optional)
        .contains(
            "org.postgresql:postgresql",
            "org.mariadb.jdbc:mariadb-java-client",
            "io.opentelemetry:opentelemetry-api",
            "io.opentelemetry:opentelemetry-context",
            "org.springframework:spring-context");
    assertThat(classPath).anyMatch(entry -> entry.contains("jooq-3."));

    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                String.join(File.pathSeparator, classPath),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.jooq.no-logo=true",
                "-Dorg.jooq.no-tips=true",
                CoreWithoutIntegrationsMain.class.getName(),
                dir.resolve("outbox.db").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    boolean exited = child.waitFor(90, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String output = Files.readString(dir.resolve("child.log"), UTF_8);
    assertThat(exited).as("the child ended; its output:%n%s", output).isTrue();
    assertThat(output.lines())
        .as("the child's output")
        .contains("OK")
        .noneMatch(l -> l.startsWith("LOADABLE"));
    assertThat(child.exitValue()).as("exit code; output:%n%s", output).isZero();
  }

  /**
   * The artifacts an application inherits: those reachable in {@code dependency:tree} without
   * passing an optional node (the list marks only direct optional dependencies as such).
   */
  private static Set<String> inheritedArtifacts() throws URISyntaxException, IOException {
    Set<String> inherited = new HashSet<>();
    int optionalDepth = Integer.MAX_VALUE; // depth of the optional node we are below, if any
    for (String line : Files.readAllLines(dependencyFile("runtime-dependency-tree.txt"), UTF_8)) {
      Matcher node = TREE_NODE.matcher(line);
      if (!node.matches()) {
        continue; // the root line
      }
      int depth = node.group(1).length() / 3;
      if (depth <= optionalDepth) {
        optionalDepth = Integer.MAX_VALUE;
      }
      if (optionalDepth != Integer.MAX_VALUE) {
        continue;
      }
      if (line.endsWith("(optional)")) {
        optionalDepth = depth;
      } else {
        inherited.add(node.group(2) + ":" + node.group(3));
      }
    }
    return inherited;
  }

  private static Path dependencyFile(String name) throws URISyntaxException {
    Path file = Path.of(location(OutboxSchema.class)).getParent().resolve(name);
    assertThat(file).as("written by the build (mvn test, phase generate-test-resources)").exists();
    return file;
  }

  private static String location(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
