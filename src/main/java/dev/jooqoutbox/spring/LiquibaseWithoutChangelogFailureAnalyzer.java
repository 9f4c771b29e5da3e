package dev.jooqoutbox.spring;

import dev.jooqoutbox.OutboxSchema;
import liquibase.exception.ChangeLogParseException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Explains a start that Spring Boot's Liquibase stopped for want of a changelog: jooq-outbox brings
 * Liquibase to the class path, so Boot runs it in an application that has no changelog of its own,
 * and Boot's own analysis names neither the cause nor the property that fixes it. Ahead of Boot's
 * analyzer of the same failure; a missing changelog of the outbox's own is left to Boot's.
 * Registered in META-INF/spring.factories, which Boot reads (not public: Boot instantiates it).
 */
final class LiquibaseWithoutChangelogFailureAnalyzer
    extends AbstractFailureAnalyzer<ChangeLogParseException> implements Ordered {

  private static final String MISSING = " does not exist";

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ChangeLogParseException cause) {
    String message = cause.getMessage();
    if (message == null || !message.endsWith(MISSING) || message.contains("jooq-outbox")) {
      return null;
    }
    String changelog = message.substring(0, message.length() - MISSING.length());
    return new FailureAnalysis(
        "Spring Boot's Liquibase found no changelog at "
            + changelog
            + ". It runs because jooq-outbox brings Liquibase to the class path, though this"
            + " application has no changelog of its own.",
        "Either set spring.liquibase.enabled=false, and jooq-outbox migrates its own tables at"
            + " start-up (jooq-outbox.schema.migrate, default auto); or give"
            + " spring.liquibase.change-log a changelog of yours that includes "
            + OutboxSchema.CHANGELOG
            + ".",
        cause);
  }

  /** Before Boot's analyzer of a missing changelog, which would answer first otherwise. */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
