package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules of docs/architecture.md that the compiler does not check, read from the compiled classes'
 * constant pools: what each class refers to.
 */
class ArchitectureTest {

  @Test
  void onlyTheDialectStrategyAsksWhichDatabaseItIs() throws Exception {
    List<String> offenders = new ArrayList<>();
    for (Path file : mainClasses()) {
      String name = className(file);
      if (name.startsWith("dev.jooqoutbox.cli.")
          || name.startsWith("dev.jooqoutbox.internal.repository.OutboxDialect")) {
        continue; // the CLI maps a JDBC URL to a dialect; OutboxDialect.of picks the strategy
      }
      if (references(file).fields().stream().anyMatch(f -> f.startsWith("org/jooq/SQLDialect."))) {
        offenders.add(name);
      }
    }
    assertThat(offenders).as("classes that test SQLDialect constants").isEmpty();
  }

  @Test
  void theInboxPathBuildsNoObjectMapper() throws Exception {
    for (String name :
        List.of("dev.jooqoutbox.Inbox", "dev.jooqoutbox.internal.repository.InboxStore")) {
      Path file = classes().resolve(name.replace('.', '/') + ".class");
      assertThat(references(file).classes())
          .as("classes %s refers to", name)
          .doesNotContain("com/fasterxml/jackson/databind/ObjectMapper");
    }
  }

  /**
   * The demo's consumers of {@code --publish}: the only classes outside the publishers that refer
   * to a broker client; DemoBrokers loads one only when {@code --publish} names its broker.
   */
  private static final List<String> DEMO_BROKERS =
      List.of(
          "dev.jooqoutbox.cli.demo.RabbitMqDemoBroker",
          "dev.jooqoutbox.cli.demo.KafkaDemoBroker",
          "dev.jooqoutbox.cli.demo.NatsDemoBroker");

  private static String topLevel(String className) {
    int nested = className.indexOf('$');
    return nested < 0 ? className : className.substring(0, nested);
  }

  @Test
  void theApiDependsOnNoIntegration() throws Exception {
    for (Path file : mainClasses()) {
      String name = className(file);
      boolean core =
          !name.startsWith("dev.jooqoutbox.cli.")
              && !name.startsWith("dev.jooqoutbox.internal.micrometer.");
      if (core) {
        assertThat(references(file).classes())
            .as("classes %s refers to", name)
            .noneMatch(c -> c.startsWith("picocli/") || c.startsWith("ch/qos/logback/"))
            .noneMatch(c -> c.startsWith("com/zaxxer/hikari/"));
      }
      if (!name.startsWith("dev.jooqoutbox.publisher.") && !DEMO_BROKERS.contains(topLevel(name))) {
        assertThat(references(file).classes())
            .as("classes %s refers to (broker clients belong to the publishers)", name)
            .noneMatch(c -> c.startsWith("com/rabbitmq/"))
            .noneMatch(c -> c.startsWith("org/apache/kafka/"))
            .noneMatch(c -> c.startsWith("io/nats/"));
      }
    }
  }

  /**
   * OpenTelemetry is optional: only the tracing classes that {@code Tracing.of} loads when it is
   * present, and the Spring integration behind its own condition, refer to its classes (the
   * builders' {@code openTelemetry(...)} name it in a signature only, which loads nothing).
   */
  @Test
  void onlyTheTracingImplementationRefersToOpenTelemetry() throws Exception {
    List<String> referring = new ArrayList<>();
    for (Path file : mainClasses()) {
      if (references(file).classes().stream().anyMatch(c -> c.startsWith("io/opentelemetry/"))) {
        referring.add(className(file));
      }
    }
    assertThat(referring)
        .allMatch(
            name ->
                name.startsWith("dev.jooqoutbox.internal.tracing.OpenTelemetry")
                    || name.startsWith("dev.jooqoutbox.spring."),
            "is the tracing implementation or Spring's")
        .anyMatch(name -> name.startsWith("dev.jooqoutbox.internal.tracing.OpenTelemetry"));
  }

  @Test
  void theCliUsesTheApiAndNothingBelowIt() throws Exception {
    for (Path file : mainClasses()) {
      String name = className(file);
      if (name.startsWith("dev.jooqoutbox.cli.")) {
        assertThat(references(file).classes())
            .as("classes %s refers to", name)
            .noneMatch(c -> c.startsWith("dev/jooqoutbox/internal/repository/"))
            .noneMatch(c -> c.startsWith("dev/jooqoutbox/internal/relay/"));
      }
    }
  }

  // ---------------------------------------------------------------- constant pool reading

  private record References(Set<String> classes, Set<String> fields) {}

  private static References references(Path classFile) throws IOException {
    try (InputStream in = Files.newInputStream(classFile);
        DataInputStream data = new DataInputStream(in)) {
      data.readInt(); // magic
      data.readUnsignedShort();
      data.readUnsignedShort();
      int count = data.readUnsignedShort();
      String[] utf8 = new String[count];
      int[] classNameIndex = new int[count];
      int[][] fieldRefs = new int[count][];
      int[] nameAndTypeName = new int[count];
      for (int i = 1; i < count; i++) {
        int tag = data.readUnsignedByte();
        switch (tag) {
          case 1 -> utf8[i] = data.readUTF();
          case 7 -> classNameIndex[i] = data.readUnsignedShort();
          case 8, 16, 19, 20 -> data.readUnsignedShort();
          case 3, 4 -> data.readInt();
          case 5, 6 -> {
            data.readLong();
            i++;
          }
          case 9 -> fieldRefs[i] = new int[] {data.readUnsignedShort(), data.readUnsignedShort()};
          case 10, 11, 17, 18 -> data.readInt();
          case 12 -> {
            nameAndTypeName[i] = data.readUnsignedShort();
            data.readUnsignedShort();
          }
          case 15 -> {
            data.readUnsignedByte();
            data.readUnsignedShort();
          }
          default -> throw new IOException("constant pool tag " + tag + " in " + classFile);
        }
      }
      Set<String> classes = new HashSet<>();
      Set<String> fields = new HashSet<>();
      for (int i = 1; i < count; i++) {
        if (classNameIndex[i] != 0) {
          classes.add(utf8[classNameIndex[i]]);
        }
      }
      for (int i = 1; i < count; i++) {
        if (fieldRefs[i] != null) {
          String owner = utf8[classNameIndex[fieldRefs[i][0]]];
          fields.add(owner + "." + utf8[nameAndTypeName[fieldRefs[i][1]]]);
        }
      }
      return new References(classes, fields);
    }
  }

  private static Path classes() throws URISyntaxException {
    return Path.of(Outbox.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static List<Path> mainClasses() throws IOException, URISyntaxException {
    Path root = classes();
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".class"))
          .filter(f -> !root.relativize(f).toString().startsWith("dev/jooqoutbox/schema/"))
          .sorted()
          .toList();
    }
  }

  private static String className(Path file) throws URISyntaxException {
    return classes().relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
  }
}
