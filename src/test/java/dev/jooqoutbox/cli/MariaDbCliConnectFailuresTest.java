package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbCliConnectFailuresTest extends CliConnectFailuresContract {
  MariaDbCliConnectFailuresTest() {
    super(TestDatabase.Kind.MARIADB);
  }

  @Override
  String url(String hostAndPort, String params) {
    return "jdbc:mariadb://" + hostAndPort + "/test" + (params.isEmpty() ? "" : "?" + params);
  }

  @Override
  String oneSecondSocketTimeout() {
    return "socketTimeout=1000"; // milliseconds
  }
}
