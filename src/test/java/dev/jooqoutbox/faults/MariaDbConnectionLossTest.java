package dev.jooqoutbox.faults;

import dev.jooqoutbox.testing.TestDatabase;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ConnectionLossContract} on MariaDB: the relays connect as a user of their own, created for
 * this test with rights on its database only, and their sessions, found by that user in {@code
 * information_schema.processlist}, are ended with {@code KILL CONNECTION}.
 */
class MariaDbConnectionLossTest extends ConnectionLossContract {

  private static final Pattern URL = Pattern.compile("(jdbc:mariadb://[^/]+/)([^?]+)(\\?.*)?");

  private final String user =
      "fault_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  private final String password = UUID.randomUUID().toString();

  MariaDbConnectionLossTest() {
    super(TestDatabase.Kind.MARIADB);
  }

  @BeforeAll
  void createRelayUser() {
    // Names from UUIDs and the database's own name, never from input: account statements take no
    // bind values for names.
    db.dsl().execute("create user '" + user + "'@'%' identified by '" + password + "'");
    db.dsl().execute("grant all on `" + database() + "`.* to '" + user + "'@'%'");
  }

  @AfterAll
  void dropRelayUser() {
    db.dsl().execute("drop user if exists '" + user + "'@'%'");
  }

  @Override
  String relayUrl() {
    Matcher url = url();
    // The test database's URL with this user instead of its own user and password.
    String params =
        url.group(3) == null
            ? ""
            : url.group(3)
                .substring(1)
                .replaceAll("(^|&)(user|password)=[^&]*", "")
                .replaceFirst("^&", "");
    return url.group(1)
        + url.group(2)
        + "?user="
        + user
        + "&password="
        + password
        + (params.isEmpty() ? "" : "&" + params);
  }

  @Override
  int endRelaySessions() {
    List<Long> sessions =
        db
            .dsl()
            .fetchValues("select id from information_schema.processlist where user = ?", user)
            .stream()
            .map(id -> ((Number) id).longValue())
            .toList();
    int ended = 0;
    for (long id : sessions) {
      try {
        // KILL takes no bind value; the id is a number the server itself reported.
        db.dsl().execute("kill connection " + id);
        ended++;
      } catch (org.jooq.exception.DataAccessException gone) {
        // The session ended between the listing and the kill.
      }
    }
    return ended;
  }

  private String database() {
    return url().group(2);
  }

  private Matcher url() {
    Matcher url = URL.matcher(db.url());
    if (!url.matches()) {
      throw new IllegalStateException("not a MariaDB URL with a database: " + db.url());
    }
    return url;
  }
}
