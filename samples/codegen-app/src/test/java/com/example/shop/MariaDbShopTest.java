package com.example.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.mariadb.jdbc.MariaDbDataSource;

/** On MariaDB ({@code -Dshop.test.mariadb}, default 127.0.0.1:3306), in a new database. */
class MariaDbShopTest extends ShopContract {

  private static final String SERVER =
      System.getProperty("shop.test.mariadb", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

  private final String database =
      "shop_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

  @Override
  DataSource createDatabase() throws Exception {
    execute("CREATE DATABASE " + database); // a generated name: no input becomes SQL here
    return new MariaDbDataSource(SERVER.replaceFirst("/test\\?", "/" + database + "?"));
  }

  @Override
  void dropDatabase() throws Exception {
    execute("DROP DATABASE IF EXISTS " + database);
  }

  @Override
  SQLDialect dialect() {
    return SQLDialect.MARIADB;
  }

  private static void execute(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(SERVER);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
