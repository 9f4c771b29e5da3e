package dev.jooqoutbox.cli;

import dev.jooqoutbox.testing.TestDatabase;

class PostgresCliConnectFailuresTest extends CliConnectFailuresContract {
  PostgresCliConnectFailuresTest() {
    super(TestDatabase.Kind.POSTGRES);
  }

  @Override
  String url(String hostAndPort, String params) {
    return "jdbc:postgresql://" + hostAndPort + "/test" + (params.isEmpty() ? "" : "?" + params);
  }

  @Override
  String oneSecondSocketTimeout() {
    return "socketTimeout=1"; // seconds
  }
}
