package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/codegen.md's build for a user's own jOOQ classes is the one samples/codegen-app builds (in
 * CI, from a clean folder): the plugins character for character but for their indentation, and each
 * property they use as the sample sets it. A recipe that leaves out a step the sample needs (the
 * folder SQLite writes to) cannot be copied.
 */
class CodegenRecipeDocTest {

  @Test
  void theDocsBuildIsTheSamplesBuild() throws IOException {
    String doc = Files.readString(Path.of("docs/codegen.md"));
    List<String> pom = stripped(Files.readAllLines(Path.of("samples/codegen-app/pom.xml")));
    int from = doc.indexOf("```xml", doc.indexOf("The build, in its `pom.xml`"));
    assertThat(from).as("the build's block in codegen.md").isPositive();
    int to = doc.indexOf("```\n", from + 6);
    List<String> block = stripped(doc.substring(from + "```xml\n".length(), to).lines().toList());
    int gap = block.indexOf("...");
    assertThat(gap).as("the properties, ..., the plugins").isPositive();

    List<String> properties = block.subList(1, gap - 1); // within <properties>...</properties>
    assertThat(properties).isNotEmpty();
    assertThat(pom).as("each property as the sample sets it").containsAll(properties);

    List<String> plugins = block.subList(gap + 1, block.size());
    assertThat(plugins.get(0)).isEqualTo("<plugins>");
    assertThat(Collections.indexOfSubList(pom, plugins))
        .as("the sample's plugins, line for line")
        .isNotNegative();
    assertThat(plugins).contains("<artifactId>maven-antrun-plugin</artifactId>");
  }

  @Test
  void theInstallCommandWorksWithoutOfflineMode() throws IOException {
    // -o fails after the README's two commands: they never fetch the install plugin.
    assertThat(Files.readString(Path.of("docs/codegen.md")))
        .contains("mvn -B -q install -DskipTests")
        .doesNotContain("mvn -B -o -q install");
  }

  private static List<String> stripped(List<String> lines) {
    return lines.stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
  }
}
