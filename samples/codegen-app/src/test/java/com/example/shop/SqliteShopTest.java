package com.example.shop;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.sqlite.SQLiteDataSource;

/** On SQLite, in a new file of a temporary folder. */
class SqliteShopTest extends ShopContract {

  private Path folder;

  @Override
  DataSource createDatabase() throws Exception {
    folder = Files.createTempDirectory("shop-sqlite");
    SQLiteDataSource dataSource = new SQLiteDataSource();
    dataSource.setUrl("jdbc:sqlite:" + folder.resolve("shop.db"));
    return dataSource;
  }

  @Override
  void dropDatabase() throws Exception {
    try (var files = Files.list(folder)) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }
    Files.delete(folder);
  }

  @Override
  SQLDialect dialect() {
    return SQLDialect.SQLITE;
  }
}
