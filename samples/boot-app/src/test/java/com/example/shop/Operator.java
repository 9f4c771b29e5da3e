package com.example.shop;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** An operator's browser as the console sees it: real HTTP, with or without credentials. */
final class Operator {

  private final HttpClient client = HttpClient.newHttpClient();
  private final String base;
  private final String authorization;

  private Operator(int port, String authorization) {
    this.base = "http://127.0.0.1:" + port;
    this.authorization = authorization;
  }

  /** The operator the shop knows (OperatorSecurity), at {@code port}. */
  static Operator at(int port) {
    String basic = "operator:change-me";
    return new Operator(
        port, "Basic " + Base64.getEncoder().encodeToString(basic.getBytes(StandardCharsets.UTF_8)));
  }

  /** Someone without credentials. */
  static Operator anonymousAt(int port) {
    return new Operator(port, null);
  }

  String origin() {
    return base;
  }

  HttpResponse<String> get(String path) {
    return send(request(path).GET());
  }

  /** A POST with a JSON body, and the {@code Origin} a browser would send (null for none). */
  HttpResponse<String> post(String path, String json, String contentType, String origin) {
    HttpRequest.Builder request =
        request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(json));
    if (origin != null) {
      request.header("Origin", origin);
    }
    return send(request);
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
    return authorization == null ? request : request.header("Authorization", authorization);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
