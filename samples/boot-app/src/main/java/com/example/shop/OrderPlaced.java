package com.example.shop;

/** The payload of the {@code order.placed} and {@code order.rejected} messages. */
public record OrderPlaced(String orderId, String customer, long cents) {}
