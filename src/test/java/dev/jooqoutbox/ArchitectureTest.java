package dev.jooqoutbox;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.sql.DatabaseMetaData;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jooq.SQLDialect;

/**
 * The rules of docs/architecture.md that the compiler does not check, on the compiled main classes
 * (ArchUnit). The layers, top to bottom: the integrations ({@code cli}, {@code spring}, {@code
 * publisher}, {@code internal.micrometer}, {@code internal.tracing.OpenTelemetry*}); the API's
 * entry points (the classes of {@code dev.jooqoutbox} and {@code dev.jooqoutbox.relay} that use
 * internal code: {@code Outbox}, {@code OutboxRelay}, …); {@code internal.*}; the API's values,
 * exceptions and the interfaces a user implements (the rest of those two packages); the generated
 * {@code schema}.
 */
@AnalyzeClasses(packages = "dev.jooqoutbox", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  private static final String ROOT = "dev.jooqoutbox";

  /** The API's two packages, without their subpackages. */
  private static boolean inApi(JavaClass c) {
    return c.getPackageName().equals(ROOT) || c.getPackageName().equals(ROOT + ".relay");
  }

  private static boolean usesInternalCode(JavaClass c) {
    return c.getDirectDependenciesFromSelf().stream()
        .anyMatch(d -> d.getTargetClass().getPackageName().startsWith(ROOT + ".internal."));
  }

  /**
   * {@code Outbox}, {@code Inbox}, {@code OutboxAdmin}, {@code OutboxSchema}, {@code OutboxRelay},
   * …: the API classes that use internal code, with their nested classes (a builder is its class's
   * entry point). Internal code may use the other API classes, never these.
   */
  private static final DescribedPredicate<JavaClass> API_ENTRY_POINTS =
      describe(
          "entry points of the API (classes of dev.jooqoutbox or dev.jooqoutbox.relay that use"
              + " internal code)",
          c -> inApi(c) && (usesInternalCode(c) || usesInternalCode(topLevel(c))));

  private static JavaClass topLevel(JavaClass c) {
    JavaClass top = c;
    while (top.getEnclosingClass().isPresent()) {
      top = top.getEnclosingClass().get();
    }
    return top;
  }

  /** The OpenTelemetry implementation of {@code internal.tracing}, loaded only when present. */
  private static final DescribedPredicate<JavaClass> TRACING_IMPLEMENTATION =
      describe(
          "the OpenTelemetry implementation (internal.tracing.OpenTelemetry*)",
          c -> c.getName().startsWith(ROOT + ".internal.tracing.OpenTelemetry"));

  /** The integrations' packages: each behind an optional dependency, loaded only when used. */
  private static final DescribedPredicate<JavaClass> INTEGRATION_PACKAGES =
      resideInAnyPackage(
              ROOT + ".spring..",
              ROOT + ".publisher..",
              ROOT + ".cli..",
              ROOT + ".internal.cli..",
              ROOT + ".internal.micrometer..")
          .as("an integration (spring, publisher, cli, micrometer)");

  private static final DescribedPredicate<JavaClass> INTEGRATIONS =
      INTEGRATION_PACKAGES
          .or(TRACING_IMPLEMENTATION)
          .as("an integration (spring, publisher, cli, micrometer, the OpenTelemetry tracing)");

  // ---------------------------------------------------------------- the package graph

  /**
   * The packages of {@code dev.jooqoutbox}, with the API's two packages each split in two: its
   * entry points (above internal code) and the rest (below it). The generated classes are one
   * slice: they name only {@code internal.convert}, which sits below them and the repository alike.
   */
  private static final String GENERATED = "dev.jooqoutbox.schema..";

  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          if (!c.getPackageName().startsWith(ROOT)) {
            return SliceIdentifier.ignore();
          }
          if (resideInAPackage(GENERATED).test(c)) {
            // jOOQ's generated packages refer to each other by design: one slice for all of them.
            return SliceIdentifier.of("schema (generated)");
          }
          String name =
              c.getPackageName().equals(ROOT)
                  ? "(root)"
                  : c.getPackageName().substring(ROOT.length() + 1);
          if (inApi(c)) {
            return SliceIdentifier.of(
                name + (API_ENTRY_POINTS.test(c) ? " entry points" : " values"));
          }
          return SliceIdentifier.of(name);
        }

        @Override
        public String getDescription() {
          return "packages of dev.jooqoutbox.(**), the API's split into entry points and values";
        }
      };

  @ArchTest
  static final ArchRule noCyclesBetweenPackages =
      slices().assignedFrom(PACKAGES).should().beFreeOfCycles();

  @ArchTest
  static final ArchRule internalCodeNeverDependsOnALayerAboveIt =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".internal..")
          .and(not(INTEGRATIONS))
          .should()
          .dependOnClassesThat(API_ENTRY_POINTS.or(INTEGRATION_PACKAGES))
          .because("internal code sits below the API's entry points and every integration");

  /** {@code Tracing.of} loads it, when OpenTelemetry is present; nothing else below Spring does. */
  @ArchTest
  static final ArchRule onlyTracingLoadsItsOpenTelemetryImplementation =
      noClasses()
          .that()
          .resideOutsideOfPackages(ROOT + ".internal.tracing..", ROOT + ".spring..")
          .should()
          .dependOnClassesThat(TRACING_IMPLEMENTATION);

  @ArchTest
  static final ArchRule theApiNeverDependsOnAnIntegration =
      noClasses()
          .that(describe("are in dev.jooqoutbox or dev.jooqoutbox.relay", ArchitectureTest::inApi))
          .should()
          .dependOnClassesThat(INTEGRATIONS);

  // ---------------------------------------------------------------- the dialect

  /** {@code OutboxDialect} (whose {@code of} picks the strategy) and its implementations. */
  private static final DescribedPredicate<JavaClass> DIALECT_STRATEGY =
      describe(
          "the dialect strategy (internal.repository.OutboxDialect and its implementations)",
          c ->
              Stream.of("OutboxDialect", "PostgresDialect", "MariaDbDialect", "SqliteDialect")
                  .anyMatch(n -> c.getName().startsWith(ROOT + ".internal.repository." + n)));

  @ArchTest
  static final ArchRule onlyTheDialectStrategyAsksWhichDatabaseItIs =
      noClasses()
          .that(not(DIALECT_STRATEGY))
          .and()
          .resideOutsideOfPackage(ROOT + ".cli..")
          .should()
          .accessFieldWhere(
              describe(
                  "the field is a constant of SQLDialect",
                  (JavaFieldAccess a) -> a.getTargetOwner().isEquivalentTo(SQLDialect.class)))
          .orShould()
          .callMethod(DatabaseMetaData.class, "getDatabaseProductName")
          .because(
              "the CLI maps a JDBC URL to a dialect; OutboxDialect.of picks the strategy, from the"
                  + " jOOQ dialect or the connection's product name");

  // ---------------------------------------------------------------- what loads what

  @ArchTest
  static final ArchRule theInboxPathBuildsNoObjectMapper =
      noClasses()
          .that()
          .haveFullyQualifiedName(ROOT + ".Inbox")
          .or()
          .haveFullyQualifiedName(ROOT + ".internal.repository.InboxStore")
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("com.fasterxml.jackson.databind.ObjectMapper");

  /**
   * The demo's consumers of {@code --publish}: the only classes outside the publishers that refer
   * to a broker client; DemoBrokers loads one only when {@code --publish} names its broker.
   */
  private static final List<String> DEMO_BROKERS =
      List.of(
          ROOT + ".cli.demo.RabbitMqDemoBroker",
          ROOT + ".cli.demo.KafkaDemoBroker",
          ROOT + ".cli.demo.NatsDemoBroker");

  @ArchTest
  static final ArchRule theCoreNeverTouchesTheToolsLibraries =
      noClasses()
          .that()
          .resideOutsideOfPackages(ROOT + ".cli..", ROOT + ".internal.micrometer..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("picocli..", "ch.qos.logback..", "com.zaxxer.hikari..");

  @ArchTest
  static final ArchRule brokerClientsBelongToThePublishers =
      noClasses()
          .that()
          .resideOutsideOfPackage(ROOT + ".publisher..")
          .and(
              describe(
                  "are not a demo broker",
                  (JavaClass c) -> !DEMO_BROKERS.contains(topLevel(c).getName())))
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("com.rabbitmq..", "org.apache.kafka..", "io.nats..");

  /**
   * OpenTelemetry is optional: only the tracing classes that {@code Tracing.of} loads when it is
   * present, and the Spring integration behind its own condition, refer to its classes in their
   * code (the builders' {@code openTelemetry(...)} name it in a signature only, which loads
   * nothing).
   */
  @ArchTest
  static final ArchRule onlyTheTracingImplementationRefersToOpenTelemetry =
      noClasses()
          .that(not(TRACING_IMPLEMENTATION))
          .and()
          .resideOutsideOfPackage(ROOT + ".spring..")
          .should(referInTheirCodeTo("io.opentelemetry."));

  /** The rule above checks something: the implementation is where it says. */
  @ArchTest
  static final ArchRule theTracingImplementationRefersToOpenTelemetry =
      classes()
          .that()
          .haveFullyQualifiedName(ROOT + ".internal.tracing.OpenTelemetryTracing")
          .should(referInTheirCodeTo("io.opentelemetry."))
          .allowEmptyShould(false);

  @ArchTest
  static final ArchRule theCliUsesTheApiAndNothingBelowIt =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".cli..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(ROOT + ".internal.repository..", ROOT + ".internal.relay..");

  /**
   * Refers to a class of {@code prefix} where the JVM loads it: a supertype, a call, a field
   * access, a class literal, an {@code instanceof}, a {@code catch}; not in a signature alone.
   */
  private static ArchCondition<JavaClass> referInTheirCodeTo(String prefix) {
    return new ArchCondition<>("refer to classes of " + prefix + "* in their code") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        Set<String> referred = new HashSet<>();
        c.getRawSuperclass().ifPresent(s -> referred.add(s.getName()));
        c.getRawInterfaces().forEach(i -> referred.add(i.getName()));
        for (JavaAccess<?> access : c.getAccessesFromSelf()) {
          referred.add(access.getTargetOwner().getName());
        }
        c.getReferencedClassObjects().forEach(r -> referred.add(r.getRawType().getName()));
        c.getInstanceofChecks().forEach(i -> referred.add(i.getRawType().getName()));
        for (JavaCodeUnit unit : c.getCodeUnits()) {
          unit.getTryCatchBlocks()
              .forEach(t -> t.getCaughtThrowables().forEach(e -> referred.add(e.getName())));
        }
        referred.stream()
            .filter(name -> name.startsWith(prefix))
            .sorted()
            .forEach(
                name ->
                    events.add(
                        SimpleConditionEvent.satisfied(c, c.getName() + " refers to " + name)));
        if (referred.stream().noneMatch(name -> name.startsWith(prefix))) {
          events.add(
              SimpleConditionEvent.violated(c, c.getName() + " refers to no " + prefix + "*"));
        }
      }
    };
  }
}
