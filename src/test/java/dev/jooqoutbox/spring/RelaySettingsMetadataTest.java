package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jooqoutbox.internal.relay.Setting;
import dev.jooqoutbox.internal.relay.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The relay properties' defaults in the configuration metadata (what IDEs show) are those of the
 * one list of settings. The configuration processor cannot read a default from another class, so
 * they are written into the additional metadata from that list: this test fails on drift and, with
 * {@code -Doutbox.regenerateMetadata=true}, writes the file again (as codegen does for {@code
 * generated/}).
 */
class RelaySettingsMetadataTest {

  private static final Path ADDITIONAL =
      Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");
  private static final String RELAY = OutboxProperties.PREFIX + ".relay.";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theAdditionalMetadataGivesEachRelayPropertyTheDefaultOfItsSetting() throws IOException {
    ObjectNode file = (ObjectNode) JSON.readTree(ADDITIONAL.toFile());
    ArrayNode regenerated = JSON.createArrayNode();
    for (JsonNode property : file.get("properties")) {
      if (!property.get("name").asText().startsWith(RELAY)) {
        regenerated.add(property);
      }
    }
    expected().forEach((name, value) -> regenerated.add(entry(name, value)));
    if (Boolean.getBoolean("outbox.regenerateMetadata")) {
      file.set("properties", regenerated);
      Files.writeString(
          ADDITIONAL, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(file) + "\n");
    }
    assertThat(JSON.readTree(ADDITIONAL.toFile()).get("properties"))
        .as("%s, from Settings (rerun with -Doutbox.regenerateMetadata=true)", ADDITIONAL)
        .isEqualTo(regenerated);
  }

  @Test
  void theMetadataTheJarShipsHasTheDefaultsOfTheSettings() throws IOException {
    Map<String, JsonNode> shipped = new LinkedHashMap<>();
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the metadata the configuration processor writes").isNotNull();
      JSON.readTree(in).get("properties").forEach(p -> shipped.put(p.get("name").asText(), p));
    }
    Map<String, Object> expected = expected();
    assertThat(expected).containsKeys(RELAY + "batch-size", RELAY + "backoff.max");
    expected.forEach(
        (name, value) -> {
          assertThat(shipped).as(name).containsKey(name);
          assertThat(shipped.get(name).get("defaultValue"))
              .as(name)
              .isEqualTo(JSON.valueToTree(value));
        });
  }

  /** Each relay property with a fixed default, and that default as the metadata writes it. */
  private static Map<String, Object> expected() {
    Map<String, Object> defaults = new LinkedHashMap<>();
    for (Setting setting : Settings.ALL) {
      if (setting.property() == null) {
        continue;
      }
      if (setting instanceof Setting.Count count && count.defaultValue() != null) {
        defaults.put(RELAY + count.property(), count.defaultValue());
      } else if (setting instanceof Setting.Span span) {
        defaults.put(RELAY + span.property(), text(span.defaultValue()));
      }
    }
    return defaults;
  }

  private static ObjectNode entry(String name, Object value) {
    ObjectNode entry = JSON.createObjectNode();
    entry.put("name", name);
    entry.set("defaultValue", JSON.valueToTree(value));
    return entry;
  }

  /** A duration as Spring Boot writes one: in the largest unit that holds it whole. */
  static String text(Duration duration) {
    long millis = duration.toMillis();
    if (millis % Duration.ofDays(1).toMillis() == 0) {
      return duration.toDays() + "d";
    }
    if (millis % Duration.ofHours(1).toMillis() == 0) {
      return duration.toHours() + "h";
    }
    if (millis % Duration.ofMinutes(1).toMillis() == 0) {
      return duration.toMinutes() + "m";
    }
    if (millis % 1000 == 0) {
      return duration.toSeconds() + "s";
    }
    return millis + "ms";
  }
}
