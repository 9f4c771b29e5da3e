package dev.jooqoutbox.publisher;

import java.util.Map;

/** One message as a test's consumer read it from the broker. */
public record Received(String id, String payloadJson, Map<String, String> headers) {}
