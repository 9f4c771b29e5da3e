package dev.jooqoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import liquibase.exception.ChangeLogParseException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * The analysis a Boot application without a changelog of its own gets when Boot's Liquibase stops
 * its start (the start itself, on Boot's parents: samples/boot-app's NoChangelogTest).
 */
class LiquibaseWithoutChangelogFailureAnalyzerTest {

  private static final String BOOT_DEFAULT = "classpath:/db/changelog/db.changelog-master.yaml";

  @Test
  void namesTheCauseAndThePropertyThatFixesIt() {
    FailureAnalysis analysis =
        analyze(new ChangeLogParseException(BOOT_DEFAULT + " does not exist"));
    assertThat(analysis).isNotNull();
    assertThat(analysis.getDescription())
        .contains("no changelog at " + BOOT_DEFAULT)
        .contains("jooq-outbox brings Liquibase");
    assertThat(analysis.getAction())
        .contains("spring.liquibase.enabled=false")
        .contains("spring.liquibase.change-log")
        .contains("db/changelog/jooq-outbox.xml");
  }

  @Test
  void leavesOtherParseFailuresToBoot() {
    assertThat(analyze(new ChangeLogParseException("unexpected element at line 3"))).isNull();
    assertThat(analyze(new ChangeLogParseException("db/changelog/jooq-outbox.xml does not exist")))
        .isNull();
  }

  @Test
  void isRegisteredForBootToFind() {
    List<FailureAnalyzer> analyzers =
        SpringFactoriesLoader.forDefaultResourceLocation()
            .load(
                FailureAnalyzer.class,
                // Boot's own analyzers want constructor arguments a plain load cannot give.
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {}));
    assertThat(analyzers)
        .hasAtLeastOneElementOfType(LiquibaseWithoutChangelogFailureAnalyzer.class);
  }

  private static FailureAnalysis analyze(Throwable failure) {
    return new LiquibaseWithoutChangelogFailureAnalyzer()
        .analyze(new IllegalStateException("start failed", failure));
  }
}
