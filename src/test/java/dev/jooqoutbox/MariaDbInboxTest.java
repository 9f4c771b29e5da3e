package dev.jooqoutbox;

import dev.jooqoutbox.testing.TestDatabase;

class MariaDbInboxTest extends InboxContract {
  MariaDbInboxTest() {
    super(TestDatabase.Kind.MARIADB);
  }
}
