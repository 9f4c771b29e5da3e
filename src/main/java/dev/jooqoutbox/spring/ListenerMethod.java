package dev.jooqoutbox.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.OutboxMessage;
import dev.jooqoutbox.relay.OutboxHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * An {@link OutboxListener} method as a relay handler: reads the payload into the method's payload
 * parameter, passes the {@link OutboxMessage} where asked, and calls the method on the bean
 * (through its proxy, so the bean's own advice, {@code @Transactional} for example, applies).
 */
final class ListenerMethod implements OutboxHandler {

  private final Object bean;
  private final Method method;
  private final Argument[] arguments;

  private interface Argument {
    Object of(OutboxMessage message) throws Exception;
  }

  private ListenerMethod(Object bean, Method method, Argument[] arguments) {
    this.bean = bean;
    this.method = method;
    this.arguments = arguments;
  }

  /**
   * @param declared the annotated method as declared on the bean's class
   * @throws IllegalArgumentException saying what is wrong with the method
   */
  static ListenerMethod of(Object bean, Method declared, ObjectMapper mapper) {
    if (Modifier.isStatic(declared.getModifiers())) {
      throw new IllegalArgumentException("it is static; make it an instance method");
    }
    Method method;
    try {
      method = AopUtils.selectInvocableMethod(declared, bean.getClass());
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(
          "it cannot be called through the bean's proxy: " + e.getMessage(), e);
    }
    if (AopUtils.isCglibProxy(bean) && Modifier.isFinal(method.getModifiers())) {
      throw new IllegalArgumentException(
          "it cannot be called through the bean's proxy: it is final, so the proxy cannot pass the"
              + " call to the bean; remove final");
    }
    Type[] types = method.getGenericParameterTypes();
    Argument[] arguments = new Argument[types.length];
    boolean message = false;
    Type payload = null;
    for (int i = 0; i < types.length; i++) {
      if (types[i] == OutboxMessage.class) {
        if (message) {
          throw new IllegalArgumentException("it has two OutboxMessage parameters");
        }
        message = true;
        arguments[i] = m -> m;
      } else {
        if (payload != null) {
          throw new IllegalArgumentException(
              "it has two payload parameters ("
                  + payload.getTypeName()
                  + " and "
                  + types[i].getTypeName()
                  + "); take one payload and, if needed, the OutboxMessage");
        }
        payload = types[i];
        PayloadReader reader = PayloadReader.of(mapper, types[i]);
        arguments[i] = reader::read;
      }
    }
    ReflectionUtils.makeAccessible(method);
    return new ListenerMethod(bean, method, arguments);
  }

  @Override
  public void handle(OutboxMessage message) throws Exception {
    Object[] args = new Object[arguments.length];
    for (int i = 0; i < args.length; i++) {
      args[i] = arguments[i].of(message);
    }
    try {
      method.invoke(bean, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception exception) {
        throw exception;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** {@code Type.method(Param, ...)}, for messages. */
  static String describe(Method method) {
    StringBuilder s =
        new StringBuilder(method.getDeclaringClass().getSimpleName())
            .append('.')
            .append(method.getName())
            .append('(');
    Class<?>[] params = method.getParameterTypes();
    for (int i = 0; i < params.length; i++) {
      s.append(i == 0 ? "" : ", ").append(params[i].getSimpleName());
    }
    return s.append(')').toString();
  }
}
