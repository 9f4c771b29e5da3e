package dev.jooqoutbox.nospring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spring Boot integration is optional: an application without Spring on its classpath writes,
 * relays and uses the inbox as before. Runs {@link PlainApplication} in a child JVM whose classpath
 * is this test's minus every Spring jar.
 */
class NoSpringClasspathTest {

  @Test
  void anApplicationWithoutSpringWritesRelaysAndUsesTheInbox(@TempDir Path dir) throws Exception {
    List<String> entries =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> !e.replace('\\', '/').contains("/org/springframework/"))
            .toList();
    assertThat(entries).noneMatch(e -> e.contains("spring-"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path output = dir.resolve("output.txt");
    Process child =
        new ProcessBuilder(
                java,
                "-cp",
                entries.stream().collect(Collectors.joining(File.pathSeparator)),
                PlainApplication.class.getName(),
                dir.resolve("outbox.db").toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean exited = child.waitFor(90, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly();
    }
    String printed = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(exited).as("child exited; it printed:%n%s", printed).isTrue();
    assertThat(child.exitValue()).as("exit code; it printed:%n%s", printed).isZero();
    assertThat(printed).contains("ok");
  }
}
