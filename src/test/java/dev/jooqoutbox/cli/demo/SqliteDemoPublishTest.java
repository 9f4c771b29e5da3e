package dev.jooqoutbox.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jooqoutbox.publisher.TestBrokers;
import dev.jooqoutbox.publisher.kafka.KafkaBroker;
import dev.jooqoutbox.testing.TestDatabase;
import dev.jooqoutbox.testing.TestDatabase.Kind;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo with {@code --publish}, on SQLite: the relays publish through the real broker and the
 * demo's consumer of it books the orders; the end-of-run checks pass as without a broker. A broker
 * that does not answer stops the demo at once with its name and address.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqliteDemoPublishTest {

  private TestDatabase db;

  @BeforeAll
  void open() {
    db = TestDatabase.empty(Kind.SQLITE);
  }

  @AfterAll
  void close() {
    db.close();
  }

  private DemoRunner demo(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--db",
                db.url(),
                "--orders",
                "500",
                "--customers",
                "50",
                "--timeout",
                "60s",
                "--no-progress"));
    args.addAll(List.of(extra));
    DemoRunner result = DemoRunner.run(new DemoCommand(), args.toArray(String[]::new));
    System.out.println(String.join(" ", args) + "\n" + result);
    return result;
  }

  @Test
  void publishesThroughRabbitMqAndPasses() {
    TestBrokers.assumeRabbitMq();
    DemoRunner result = demo("--publish", "rabbitmq", "--relays", "2");

    DemoContract.assertPassed(result);
    assertThat(result.out()).contains("publishing through RabbitMQ at amqp://guest:***@127.0.0.1");
  }

  @Test
  void publishesThroughNatsJetStreamAndPasses() {
    TestBrokers.assumeNats();
    DemoRunner result = demo("--publish", "nats", "--relays", "2");

    DemoContract.assertPassed(result);
    assertThat(result.out()).contains("publishing through NATS JetStream at nats://127.0.0.1:4222");
  }

  @Test
  void publishesThroughKafkaAndPasses() throws Exception {
    try (KafkaBroker kafka = new KafkaBroker()) {
      DemoRunner result = demo("--publish", "kafka", "--broker", kafka.bootstrapServers());

      DemoContract.assertPassed(result);
      assertThat(result.out()).contains("publishing through Kafka at " + kafka.bootstrapServers());
    }
  }

  @Test
  void stopsAtOnceNamingABrokerThatDoesNotAnswer() {
    DemoRunner rabbit =
        demo("--publish", "rabbitmq", "--broker", "amqp://guest:secret@127.0.0.1:1");
    assertThat(rabbit.exitCode()).as("%s", rabbit).isEqualTo(1);
    assertThat(rabbit.err())
        .as("%s", rabbit)
        .startsWith("demo: cannot reach RabbitMQ at amqp://guest:***@127.0.0.1:1: ")
        .doesNotContain("secret")
        .doesNotContain("\tat ");

    DemoRunner nats = demo("--publish", "nats", "--broker", "nats://127.0.0.1:1");
    assertThat(nats.exitCode()).as("%s", nats).isEqualTo(1);
    assertThat(nats.err())
        .as("%s", nats)
        .startsWith("demo: cannot reach NATS JetStream at nats://127.0.0.1:1: ");

    DemoRunner kafka = demo("--publish", "kafka", "--broker", "127.0.0.1:1");
    assertThat(kafka.exitCode()).as("%s", kafka).isEqualTo(1);
    assertThat(kafka.err()).as("%s", kafka).startsWith("demo: cannot reach Kafka at 127.0.0.1:1: ");
  }

  @Test
  void refusesPublishOptionsThatDoNotFit() {
    assertUsage(demo("--publish", "mqtt"), "--publish must be rabbitmq, kafka or nats, was 'mqtt'");
    assertUsage(demo("--broker", "127.0.0.1:9092"), "--broker goes with --publish");
    assertUsage(
        demo("--publish", "nats", "--fail-rate", "0.1"),
        "--fail-rate and --duplicate-rate inject trouble into the relay's handler");
  }

  /**
   * The CLI in a JVM whose class path lacks the RabbitMQ client, as the CLI jar does: {@code
   * --publish rabbitmq} stops with exit code 1 and names the jar, not a NoClassDefFoundError.
   */
  @Test
  void withoutTheBrokersClientOnTheClassPathItNamesTheJar(@TempDir Path dir) throws Exception {
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.isBlank() && !entry.contains("amqp-client"))
            .collect(Collectors.joining(File.pathSeparator));
    Process cli =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                "-XX:TieredStopAtLevel=1",
                "dev.jooqoutbox.cli.OutboxCli",
                "demo",
                "--db",
                "jdbc:sqlite:" + dir.resolve("demo.db"),
                "--publish",
                "rabbitmq")
            .redirectErrorStream(true)
            .start();
    String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(cli.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(cli.exitValue()).as(output).isEqualTo(1);
    assertThat(output)
        .contains("demo: --publish rabbitmq needs the RabbitMQ client on the class path")
        .contains("amqp-client-5.37.1.jar")
        .doesNotContain("NoClassDefFoundError");
  }

  @Test
  void helpNamesTheBrokersAndTheClientJarsTheCliJarLeavesOut() {
    DemoRunner help = DemoRunner.run(new DemoCommand(), "--help");
    // picocli wraps the descriptions: compared with the line breaks folded.
    assertThat(help.out().replaceAll("\\s+", " "))
        .contains("--publish=BROKER rabbitmq, kafka or nats")
        .contains("--broker=ADDRESS With --publish: the broker's address.")
        .contains("The broker clients are not in the CLI jar")
        .contains("(amqp-client, kafka-clients or jnats)");
  }

  private static void assertUsage(DemoRunner result, String message) {
    assertThat(result.exitCode()).as("%s", result).isEqualTo(2);
    assertThat(result.err()).as("%s", result).contains(message);
  }
}
