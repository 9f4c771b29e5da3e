package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/spring-boot.md's property table is the configuration metadata the jar ships (what IDEs
 * complete): the same {@code jooq-outbox.*} properties, with the same defaults where the metadata
 * has one.
 */
class PropertiesDocTest {

  private static final Pattern ROW =
      Pattern.compile("^\\| `(jooq-outbox\\.[a-z.-]+)` \\| ([^|]+) \\|");

  @Test
  void theDocsTableListsEveryPropertyOfTheMetadataWithItsDefault() throws IOException {
    Map<String, String> documented = new TreeMap<>();
    for (String line : Files.readAllLines(Path.of("docs/spring-boot.md"))) {
      Matcher row = ROW.matcher(line);
      if (row.find()) {
        documented.put(row.group(1), row.group(2).trim());
      }
    }
    Map<String, String> metadata = new TreeMap<>();
    JsonNode properties;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the metadata the configuration processor writes").isNotNull();
      properties = new ObjectMapper().readTree(in).get("properties");
    }
    for (JsonNode property : properties) {
      String name = property.get("name").asText();
      if (name.startsWith("jooq-outbox.")) {
        JsonNode value = property.get("defaultValue");
        metadata.put(name, value == null ? null : value.asText());
      }
    }
    assertThat(documented.keySet()).containsExactlyElementsOf(metadata.keySet());
    metadata.forEach(
        (name, value) -> {
          if (value != null) {
            assertThat(documented.get(name)).as(name).isEqualTo(value);
          } else {
            assertThat(documented.get(name)).as(name).startsWith("(");
          }
        });
  }
}
