package dev.jooqoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The jar's public surface. Every public type outside {@code dev.jooqoutbox.internal} is listed in
 * {@code src/test/resources/api/public-types.txt}, so that a new public type is a decision (update
 * the list in the same commit), and no public or protected member of such a type mentions an
 * internal type, so that nothing internal becomes reachable through the API.
 */
class ApiSurfaceTest {

  private static final String INTERNAL = "dev.jooqoutbox.internal.";

  @Test
  void publicTypesOutsideInternalAreExactlyTheListedOnes() throws Exception {
    List<String> listed =
        Files.readAllLines(
                Path.of("src/test/resources/api/public-types.txt"), StandardCharsets.UTF_8)
            .stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .toList();

    assertThat(publicApiTypes().stream().map(Class::getName).toList())
        .as("public types outside %s (update src/test/resources/api/public-types.txt)", INTERNAL)
        .containsExactlyElementsOf(listed);
  }

  @Test
  void noPublicMemberOfTheApiMentionsAnInternalType() throws Exception {
    List<String> leaks = new ArrayList<>();
    for (Class<?> type : publicApiTypes()) {
      List<Type> mentioned = new ArrayList<>();
      mentioned.add(type.getGenericSuperclass());
      mentioned.addAll(Arrays.asList(type.getGenericInterfaces()));
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (visible(c)) {
          mentioned.addAll(Arrays.asList(c.getGenericParameterTypes()));
          mentioned.addAll(Arrays.asList(c.getGenericExceptionTypes()));
        }
      }
      for (Method m : type.getDeclaredMethods()) {
        if (visible(m) && !m.isSynthetic()) {
          mentioned.add(m.getGenericReturnType());
          mentioned.addAll(Arrays.asList(m.getGenericParameterTypes()));
          mentioned.addAll(Arrays.asList(m.getGenericExceptionTypes()));
        }
      }
      for (Field f : type.getDeclaredFields()) {
        if (visible(f) && !f.isSynthetic()) {
          mentioned.add(f.getGenericType());
        }
      }
      if (type.isRecord()) {
        for (RecordComponent rc : type.getRecordComponents()) {
          mentioned.add(rc.getGenericType());
        }
      }
      Set<String> names = new TreeSet<>();
      mentioned.forEach(t -> collect(t, names));
      names.stream()
          .filter(n -> n.startsWith(INTERNAL))
          .forEach(n -> leaks.add(type.getName() + " mentions " + n));
    }
    assertThat(leaks).as("internal types reachable through the public API").isEmpty();
  }

  private static boolean visible(Member member) {
    int modifiers = member.getModifiers();
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static void collect(Type type, Set<String> names) {
    if (type == null) {
      return;
    }
    if (type instanceof Class<?> c) {
      names.add((c.isArray() ? c.getComponentType() : c).getName());
    } else if (type instanceof ParameterizedType p) {
      collect(p.getRawType(), names);
      Arrays.stream(p.getActualTypeArguments()).forEach(a -> collect(a, names));
    } else if (type instanceof WildcardType w) {
      Arrays.stream(w.getUpperBounds()).forEach(b -> collect(b, names));
      Arrays.stream(w.getLowerBounds()).forEach(b -> collect(b, names));
    } else if (type instanceof GenericArrayType g) {
      collect(g.getGenericComponentType(), names);
    } else if (type instanceof TypeVariable<?> v) {
      Arrays.stream(v.getBounds()).forEach(b -> collect(b, names));
    }
  }

  /** Public types (top level and nested, reachable by name) outside the internal packages. */
  private static List<Class<?>> publicApiTypes() throws IOException, URISyntaxException {
    Path classes =
        Path.of(Outbox.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Class<?>> types = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
        String name =
            classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
        if (name.startsWith(INTERNAL) || name.endsWith("package-info")) {
          continue;
        }
        Class<?> type;
        try {
          type = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
          throw new IllegalStateException("cannot load " + name, e);
        }
        if (isPublicAllTheWayOut(type)) {
          types.add(type);
        }
      }
    }
    types.sort((a, b) -> a.getName().compareTo(b.getName()));
    return types;
  }

  private static boolean isPublicAllTheWayOut(Class<?> type) {
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass()) {
        return false;
      }
    }
    return true;
  }
}
