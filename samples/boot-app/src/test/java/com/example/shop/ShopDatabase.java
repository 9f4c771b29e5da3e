package com.example.shop;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A new, empty PostgreSQL database for one test class, on the server of {@code
 * -Dshop.test.postgres} (default: the test server at 127.0.0.1:5432), so that each application
 * starts on nothing, as a new user's does. A test class that imports {@link DropOnClose} has its
 * database dropped when its application closes, after the relay stopped; the rest (an application
 * that never started) when the test JVM ends.
 */
final class ShopDatabase {

  private static final String SERVER =
      System.getProperty("shop.test.postgres", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  /** The databases the JVM's end drops: those no application's DropOnClose took over. */
  private static final Set<String> LEFT_TO_THE_JVM = ConcurrentHashMap.newKeySet();

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
    LEFT_TO_THE_JVM.add(name);
    // Not one an application uses: its relay, stopping beside this hook, would wait for a
    // connection to a dropped database.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (LEFT_TO_THE_JVM.remove(name)) {
                    drop(name);
                  }
                }));
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

  /**
   * Drops the application's database when its context closes: a context's beans are destroyed
   * after its lifecycle beans (the relay) stopped.
   */
  static final class DropOnClose implements DisposableBean {

    private final String name;

    DropOnClose(Environment environment) {
      String url = environment.getRequiredProperty("spring.datasource.url");
      this.name = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
      LEFT_TO_THE_JVM.remove(name);
    }

    @Override
    public void destroy() {
      drop(name);
    }
  }
}
