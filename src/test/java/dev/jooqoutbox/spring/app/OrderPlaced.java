package dev.jooqoutbox.spring.app;

/** The payload of {@code order.placed} and {@code order.shipped}. */
public record OrderPlaced(String orderId, String customer, long amount) {}
