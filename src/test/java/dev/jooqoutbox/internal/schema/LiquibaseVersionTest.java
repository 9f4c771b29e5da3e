package dev.jooqoutbox.internal.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jooqoutbox.OutboxException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which Liquibase the outbox runs on (docs/spring-boot.md, "Versions"). Liquibase 5 is not used
 * here (its licence), so its refusal is checked on the version string the check reads.
 */
class LiquibaseVersionTest {

  @ParameterizedTest
  @ValueSource(strings = {"4.31.0", "4.31.1", "4.33.0", "4.40.2", "DEV", "UNKNOWN"})
  void theTestedLineAndUnnamedBuildsPass(String version) {
    assertThatCode(() -> LiquibaseVersion.require(version)).doesNotThrowAnyException();
  }

  @Test
  void liquibaseFiveStopsWithWhatToPin() {
    assertThatThrownBy(() -> LiquibaseVersion.require("5.0.1"))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "jooq-outbox needs Liquibase 4.31 or a later 4.x, but the class path has Liquibase"
                + " 5.0.1 (Spring Boot 4 manages Liquibase 5, which is not open source and not"
                + " supported): pin it to 4.33.0 (Maven, with Spring Boot's parent:"
                + " <liquibase.version>4.33.0</liquibase.version>; Gradle:"
                + " ext['liquibase.version'] = '4.33.0'), see docs/spring-boot.md");
  }

  @Test
  void anOlderFourStopsToo() {
    assertThatThrownBy(() -> LiquibaseVersion.require("4.29.2"))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("the class path has Liquibase 4.29.2 (older than the oldest")
        .hasMessageContaining("<liquibase.version>4.33.0</liquibase.version>");
  }

  @Test
  void theLiquibaseOfTheseTestsPasses() {
    assertThatCode(LiquibaseVersion::require).doesNotThrowAnyException();
  }

  /**
   * A changelog naming a versioned XSD fails to parse on every older Liquibase (secure parsing
   * resolves only the XSDs that Liquibase jar carries): Boot 3.5's 4.31.1 refused
   * dbchangelog-4.33.xsd. Every changelog the jar ships names dbchangelog-latest.xsd, which each
   * Liquibase carries as its own newest.
   */
  @Test
  void everyShippedChangelogNamesTheLatestXsd() throws IOException {
    List<Path> changelogs;
    try (Stream<Path> files = Files.walk(Path.of("db/changelog"))) {
      changelogs = files.filter(f -> f.toString().endsWith(".xml")).toList();
    }
    assertThat(changelogs).hasSizeGreaterThan(5);
    for (Path changelog : changelogs) {
      String xml = Files.readString(changelog);
      assertThat(xml)
          .as(changelog.toString())
          .contains("/dbchangelog-latest.xsd")
          .doesNotContainPattern("dbchangelog-\\d");
    }
  }
}
