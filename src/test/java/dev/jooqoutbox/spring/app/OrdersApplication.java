package dev.jooqoutbox.spring.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service as our users write it: spring-boot-starter-jooq, orders written in
 * {@code @Transactional} methods, {@code @OutboxListener}s consuming them. No REST. Its schema is
 * its own Liquibase changelog ({@code db/changelog/orders-app.xml}), which includes the outbox's.
 */
@SpringBootApplication
public class OrdersApplication {}
