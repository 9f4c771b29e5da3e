package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/getting-started.md shows the sample's main whole, character for character: the code a reader
 * copies is the code CI runs (samples/getting-started, on SQLite and PostgreSQL).
 */
class GettingStartedDocTest {

  @Test
  void thePageShowsTheSamplesMainWhole() throws IOException {
    String doc = Files.readString(Path.of("docs/getting-started.md"));
    String main =
        Files.readString(
            Path.of("samples/getting-started/src/main/java/com/example/start/GettingStarted.java"));
    assertThat(doc).contains("```java\n" + main + "```\n");
  }
}
