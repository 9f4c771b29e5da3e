package com.example.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A new, empty PostgreSQL database for one test class, on the server of {@code
 * -Dshop.test.postgres} (default: the test server at 127.0.0.1:5432), so that each application
 * starts on nothing, as a new user's does.
 */
final class ShopDatabase {

  private static final String SERVER =
      System.getProperty("shop.test.postgres", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private ShopDatabase() {}

  /** Creates the database and points the application's DataSource at it. */
  static void register(DynamicPropertyRegistry registry) {
    String name = "shop_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(SERVER);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name); // a generated name: no input becomes SQL here
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create a database on " + SERVER, e);
    }
    // Dropped when the test JVM ends (with the cached application contexts still connected).
    Runtime.getRuntime().addShutdownHook(new Thread(() -> drop(name)));
    String url = SERVER.replaceFirst("/test\\?", "/" + name + "?");
    registry.add("spring.datasource.url", () -> url);
  }

  private static void drop(String name) {
    try (Connection c = DriverManager.getConnection(SERVER);
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (SQLException e) {
      System.err.println("could not drop " + name + ": " + e.getMessage());
    }
  }
}
