package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the README, the guide and the publishers' page show a new user is true. Every import they
 * show in their Java snippets names a class that exists (ours, jOOQ's, Jackson's, the JDK's,
 * Spring's), so a reader can copy them. Imports of the reader's own classes ({@code com.example})
 * are placeholders and skipped; Spring's are checked once Spring's context is on the test class
 * path (the Spring Boot integration brings it). The README's driver table names the driver versions
 * the build tests with. And every jooq-outbox type a snippet uses is imported by that snippet or an
 * earlier one of the same page: checking only the imports shown let a snippet use {@code
 * OutboxHandler} that no import on its page named.
 */
class DocSnippetsTest {

  private static final Pattern IMPORT =
      Pattern.compile("^import (static )?([\\w.]+?)(\\.\\*)?;.*$", Pattern.MULTILINE);

  /** A name that starts with a capital and follows no dot: a type, not a member or package. */
  private static final Pattern SIMPLE_TYPE_NAME = Pattern.compile("(?<![.\\w])[A-Z]\\w*");

  @ParameterizedTest
  @ValueSource(strings = {"README.md", "docs/guide.md", "docs/publishers.md"})
  void everyImportInTheSnippetsResolves(String doc) throws IOException {
    List<String> missing = new ArrayList<>();
    int imports = 0;
    for (String snippet : javaSnippets(Path.of(doc))) {
      Matcher line = IMPORT.matcher(snippet);
      while (line.find()) {
        String name = line.group(2);
        if (name.startsWith("com.example.")
            || (name.startsWith("org.springframework.")
                && !loadable("org.springframework.context.ApplicationContext"))) {
          continue;
        }
        imports++;
        // A static import names a member: its class is everything before the last dot.
        String type = line.group(1) != null ? name.substring(0, name.lastIndexOf('.')) : name;
        if (!loadable(type)) {
          missing.add(name);
        }
      }
    }
    assertThat(imports).as("imports shown in " + doc).isPositive();
    assertThat(missing).as("imports in " + doc + " that name no class").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"README.md", "docs/guide.md", "docs/publishers.md"})
  void everyJooqOutboxTypeTheSnippetsUseIsImportedOnThePage(String doc) throws IOException {
    Set<String> ours = jooqOutboxPublicTypes();
    Set<String> importedSoFar = new HashSet<>();
    List<String> notImported = new ArrayList<>();
    for (String snippet : javaSnippets(Path.of(doc))) {
      Matcher line = IMPORT.matcher(snippet);
      while (line.find()) {
        String[] parts = line.group(2).split("\\.");
        importedSoFar.add(parts[parts.length - 1]);
        if (line.group(1) != null && parts.length > 1) {
          importedSoFar.add(parts[parts.length - 2]); // import static a.b.Type.MEMBER
        }
      }
      Matcher type = SIMPLE_TYPE_NAME.matcher(codeOnly(snippet));
      while (type.find()) {
        String name = type.group();
        if (ours.contains(name) && !importedSoFar.contains(name) && !notImported.contains(name)) {
          notImported.add(name);
        }
      }
    }
    assertThat(notImported)
        .as("jooq-outbox types used in " + doc + " before any of its snippets imports them")
        .isEmpty();
  }

  @Test
  void theReadmeNamesTheDriverVersionsTheTestsUse() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"));
    String readme = Files.readString(Path.of("README.md"));
    for (String[] driver :
        new String[][] {
          {"org.postgresql:postgresql", "postgresql.version"},
          {"org.mariadb.jdbc:mariadb-java-client", "mariadb.version"},
          {"org.xerial:sqlite-jdbc", "sqlite.version"}
        }) {
      Matcher version = Pattern.compile("<" + driver[1] + ">([^<]+)<").matcher(pom);
      assertThat(version.find()).as(driver[1] + " in pom.xml").isTrue();
      assertThat(readme).contains("| `" + driver[0] + "` | " + version.group(1) + " |");
    }
  }

  private static List<String> javaSnippets(Path doc) throws IOException {
    List<String> snippets = new ArrayList<>();
    Matcher block =
        Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(doc));
    while (block.find()) {
      snippets.add(block.group(1));
    }
    return snippets;
  }

  /** The snippet without its imports, comments and string literals. */
  private static String codeOnly(String snippet) {
    return snippet
        .replaceAll("(?m)^import .*$", "")
        .replaceAll("//.*", "")
        .replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"");
  }

  /** The simple names of the public types of the jar, generated classes included, internals not. */
  private static Set<String> jooqOutboxPublicTypes() throws IOException {
    Set<String> names = new HashSet<>();
    for (Path root : List.of(Path.of("src/main/java"), Path.of("generated"))) {
      try (Stream<Path> files = Files.walk(root.resolve("dev/jooqoutbox"))) {
        for (Path file : files.toList()) {
          String relative = root.relativize(file).toString().replace('\\', '/');
          if (!relative.endsWith(".java")
              || relative.endsWith("package-info.java")
              || relative.contains("/internal/")) {
            continue;
          }
          String binaryName = relative.substring(0, relative.length() - 5).replace('/', '.');
          try {
            Class<?> type =
                Class.forName(binaryName, false, DocSnippetsTest.class.getClassLoader());
            if (Modifier.isPublic(type.getModifiers())) {
              names.add(type.getSimpleName());
            }
          } catch (ClassNotFoundException | LinkageError e) {
            // an integration whose optional dependency is not on the test class path: not shown
          }
        }
      }
    }
    assertThat(names).as("jooq-outbox's public types").contains("Outbox", "OutboxHandler");
    return names;
  }

  private static boolean loadable(String type) {
    int dot = type.lastIndexOf('.');
    // A nested type is imported as Outer.Inner; its binary name is Outer$Inner.
    return loads(type)
        || (dot > 0 && loads(type.substring(0, dot) + "$" + type.substring(dot + 1)));
  }

  private static boolean loads(String name) {
    try {
      Class.forName(name, false, DocSnippetsTest.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
