package dev.jooqoutbox.spring;

import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import dev.jooqoutbox.OutboxMessage;
import java.io.IOException;
import java.lang.reflect.Type;

/**
 * Reads a message's payload into a listener parameter's type. Whether the type can be read at all
 * is checked once, at startup, so that a listener whose parameter Jackson can never construct stops
 * the application instead of dead-lettering every message.
 */
final class PayloadReader {

  private final ObjectReader reader;
  private final JavaType type;

  private PayloadReader(ObjectReader reader, JavaType type) {
    this.reader = reader;
    this.type = type;
  }

  /**
   * @throws IllegalArgumentException saying why {@code mapper} cannot construct {@code type}
   */
  static PayloadReader of(ObjectMapper mapper, Type parameterType) {
    JavaType type = mapper.constructType(parameterType);
    String problem = whyUnreadable(mapper, type);
    if (problem != null) {
      throw new IllegalArgumentException(
          "the payload parameter type " + type.toCanonical() + " cannot be read: " + problem);
    }
    return new PayloadReader(mapper.readerFor(type), type);
  }

  Object read(OutboxMessage message) throws IOException {
    return reader.readValue(message.payloadJson());
  }

  JavaType type() {
    return type;
  }

  private static String whyUnreadable(ObjectMapper mapper, JavaType type) {
    if (type.isPrimitive()) {
      return null;
    }
    DeserializationConfig config = mapper.getDeserializationConfig();
    JsonDeserializer<Object> deserializer;
    try {
      DefaultDeserializationContext context =
          ((DefaultDeserializationContext) mapper.getDeserializationContext())
              .createInstance(config, null, mapper.getInjectableValues());
      if (context.getFactory().findTypeDeserializer(config, type) != null) {
        return null; // polymorphic: the JSON names the concrete type
      }
      deserializer = context.findRootValueDeserializer(type);
    } catch (IOException | RuntimeException e) {
      return e.getMessage();
    }
    if (deserializer instanceof AbstractDeserializer) {
      return "it is abstract and carries no @JsonTypeInfo, so Jackson cannot create one";
    }
    if (deserializer instanceof BeanDeserializerBase bean
        && !bean.getValueInstantiator().canInstantiate()) {
      return "Jackson finds no constructor or factory method to create it";
    }
    return null;
  }
}
