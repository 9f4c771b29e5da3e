package com.example.shop;

/** An order as the shop places it, and the payload of its {@code order.placed} message. */
public record Order(String id, String customer, long cents) {}
