package com.example.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Requests to the started application over real HTTP, as a user's client or operator sends them. */
final class Http {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client = HttpClient.newHttpClient();
  private final String base;

  Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** The answer's status and its body as JSON (null when it has none). */
  record Answer(int status, JsonNode body) {}

  Answer get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  Answer post(String path, Object body) {
    try {
      String json = body == null ? "" : JSON.writeValueAsString(body);
      return send(
          HttpRequest.newBuilder(URI.create(base + path))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(json)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      String body = response.body();
      return new Answer(response.statusCode(), body.isEmpty() ? null : JSON.readTree(body));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
