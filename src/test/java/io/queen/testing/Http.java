package io.queen.testing;

import io.restassured.RestAssured;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A plain JDK HTTP client for tests that hammer the broker from many threads (RestAssured serializes and is
 * slow under concurrency). Targets the Quarkus test port. Thread-safe.
 */
public final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    public record Reply(int status, String body) {
    }

    public static String base() {
        return "http://localhost:" + RestAssured.port;
    }

    public static Reply post(String path, String json) {
        return post(base(), path, json);
    }

    public static Reply get(String path) {
        return get(base(), path);
    }

    public static Reply delete(String path) {
        return send(HttpRequest.newBuilder(URI.create(base() + path)).DELETE().timeout(Duration.ofSeconds(60)).build());
    }

    /** Against another broker (multi-broker tests). */
    public static Reply post(String baseUrl, String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).timeout(Duration.ofSeconds(60)).build());
    }

    public static Reply get(String baseUrl, String path) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET().timeout(Duration.ofSeconds(90)).build());
    }

    public static Reply send(HttpRequest request) {
        try {
            HttpResponse<String> r = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(request.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
