package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the README, the guide and the publishers' page show a new user is true. Every import they
 * show in their Java snippets names a class that exists (ours, jOOQ's, Jackson's, the JDK's,
 * Spring's), so a reader can copy them. Imports of the reader's own classes ({@code com.example})
 * are placeholders and skipped; Spring's are checked once Spring's context is on the test class
 * path (the Spring Boot integration brings it). The README's driver table names the driver versions
 * the build tests with.
 */
class DocSnippetsTest {

  private static final Pattern IMPORT =
      Pattern.compile("^import (static )?([\\w.]+?)(\\.\\*)?;.*$", Pattern.MULTILINE);

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
