package dev.jooqoutbox.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jooqoutbox.relay.AsyncOutboxHandler;
import dev.jooqoutbox.relay.OutboxHandler;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Finds the relay's handlers among the application's beans: methods annotated with {@link
 * OutboxListener}, and {@link OutboxHandler} or {@link AsyncOutboxHandler} beans whose class or
 * {@code @Bean} method is annotated. Every problem is an {@link IllegalStateException} naming the
 * method or bean, thrown while the context starts.
 *
 * @param mapper reads the payloads of listener methods that take a payload type
 * @param inbox what listeners that name an inbox run in
 */
record ListenerScanner(
    ConfigurableListableBeanFactory beans, ObjectMapper mapper, ListenerInbox inbox) {

  /** Every handler, at most one per topic. */
  List<HandlerRegistration> scan() {
    Map<String, HandlerRegistration> byTopic = new LinkedHashMap<>();
    for (String name : beans.getBeanNamesForType(Object.class, false, true)) {
      if (ScopedProxyUtils.isScopedTarget(name)) {
        continue;
      }
      Class<?> type = AutoProxyUtils.determineTargetClass(beans, name);
      if (type == null) {
        continue;
      }
      OutboxListener onBean = beans.findAnnotationOnBean(name, OutboxListener.class, false);
      if (onBean != null) {
        add(byTopic, handlerBean(name, onBean));
      }
      if (AnnotationUtils.isCandidateClass(type, OutboxListener.class)) {
        Map<Method, OutboxListener> methods =
            MethodIntrospector.selectMethods(
                type,
                (MethodIntrospector.MetadataLookup<OutboxListener>)
                    m ->
                        AnnotatedElementUtils.hasAnnotation(m, Bean.class)
                            ? null
                            : AnnotatedElementUtils.findMergedAnnotation(m, OutboxListener.class));
        methods.forEach((method, listener) -> add(byTopic, listenerMethod(name, method, listener)));
      }
    }
    return new ArrayList<>(byTopic.values());
  }

  private static void add(Map<String, HandlerRegistration> byTopic, HandlerRegistration found) {
    HandlerRegistration before = byTopic.putIfAbsent(found.topic(), found);
    if (before != null) {
      throw new IllegalStateException(
          "two handlers for topic "
              + found.topic()
              + ": "
              + before.source()
              + " and "
              + found.source()
              + "; a topic has one handler per relay");
    }
  }

  private HandlerRegistration handlerBean(String name, OutboxListener listener) {
    String source = "@OutboxListener(\"" + listener.value() + "\") bean '" + name + "'";
    Object bean = beans.getBean(name);
    if (bean instanceof OutboxHandler handler) {
      return new HandlerRegistration(
          listener.value(), inbox.around(handler, listener, source), source);
    }
    if (bean instanceof AsyncOutboxHandler async) {
      if (!listener.inbox().isEmpty()) {
        throw new IllegalStateException(
            source
                + ": an AsyncOutboxHandler completes outside any transaction, so it cannot use the"
                + " inbox; record the id with Inbox.seen where its work commits");
      }
      return new HandlerRegistration(listener.value(), async, source);
    }
    throw new IllegalStateException(
        source
            + " is a "
            + bean.getClass().getName()
            + ", neither an OutboxHandler nor an AsyncOutboxHandler; annotate one of its methods"
            + " instead");
  }

  private HandlerRegistration listenerMethod(String name, Method method, OutboxListener listener) {
    String source =
        "@OutboxListener(\""
            + listener.value()
            + "\") method "
            + ListenerMethod.describe(method)
            + " of bean '"
            + name
            + "'";
    ListenerMethod handler;
    try {
      handler = ListenerMethod.of(beans.getBean(name), method, mapper);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(source + ": " + e.getMessage(), e);
    }
    return new HandlerRegistration(
        listener.value(), inbox.around(handler, listener, source), source);
  }
}
