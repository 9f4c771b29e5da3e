package dev.jooqoutbox.internal.schema;

import dev.jooqoutbox.OutboxException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import liquibase.util.LiquibaseUtil;

/**
 * The Liquibase versions the outbox's changelogs and its migration are tested on: 4.31 (what Spring
 * Boot 3.5 manages) to the last 4.x. Liquibase 5 changed its licence and is neither used nor
 * tested; Spring Boot 4 manages it, so a Boot 4 application pins 4.33.0. Checked before every
 * migration the outbox runs and when a Spring application starts, so the wrong version stops the
 * start with a message that says what to pin instead of failing somewhere inside Liquibase. Not
 * API.
 */
public final class LiquibaseVersion {

  /** The oldest 4.x minor version tested: Spring Boot 3.5.7 manages 4.31.1. */
  static final int OLDEST_MINOR = 31;

  /** What the messages tell a user to pin: the version the library is built with. */
  static final String PIN = "4.33.0";

  private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");

  private LiquibaseVersion() {}

  /**
   * @throws OutboxException when the Liquibase on the class path is not 4.31 or a later 4.x
   */
  public static void require() {
    require(LiquibaseUtil.getBuildVersion());
  }

  /** {@link #require()} for a given version string; a string that is no version passes. */
  static void require(String version) {
    Matcher m = MAJOR_MINOR.matcher(String.valueOf(version));
    if (!m.find()) {
      return; // a development build of Liquibase names no version: nothing to judge
    }
    int major = Integer.parseInt(m.group(1));
    int minor = Integer.parseInt(m.group(2));
    if (major == 4 && minor >= OLDEST_MINOR) {
      return;
    }
    String why =
        major >= 5
            ? " (Spring Boot 4 manages Liquibase 5, which is not open source and not supported)"
            : " (older than the oldest version tested)";
    throw new OutboxException(
        "jooq-outbox needs Liquibase 4."
            + OLDEST_MINOR
            + " or a later 4.x, but the class path has Liquibase "
            + version
            + why
            + ": pin it to "
            + PIN
            + " (Maven, with Spring Boot's parent: <liquibase.version>"
            + PIN
            + "</liquibase.version>; Gradle: ext['liquibase.version'] = '"
            + PIN
            + "'), see docs/spring-boot.md");
  }
}
