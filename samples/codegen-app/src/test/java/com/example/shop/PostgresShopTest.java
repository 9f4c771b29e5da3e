package com.example.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.postgresql.ds.PGSimpleDataSource;

/** On PostgreSQL ({@code -Dshop.test.postgres}, default 127.0.0.1:5432), in a new schema. */
class PostgresShopTest extends ShopContract {

  private static final String SERVER =
      System.getProperty(
          "shop.test.postgres", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private final String schema =
      "shop_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

  @Override
  DataSource createDatabase() throws Exception {
    execute("CREATE SCHEMA " + schema); // a generated name: no input becomes SQL here
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(SERVER + (SERVER.contains("?") ? "&" : "?") + "currentSchema=" + schema);
    return dataSource;
  }

  @Override
  void dropDatabase() throws Exception {
    execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  @Override
  SQLDialect dialect() {
    return SQLDialect.POSTGRES;
  }

  private static void execute(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(SERVER);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
