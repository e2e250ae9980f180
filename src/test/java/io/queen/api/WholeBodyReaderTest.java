package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The routes whose bodies are read whole on the event loop answer exactly as when the resource read them itself:
 * an empty body is the same 400 (not a request waiting for body events already consumed), and a large body sent in
 * many chunks, with or without a Content-Length, arrives whole.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class WholeBodyReaderTest {

    @Test
    void anEmptyBodyIsA400OnEveryRoute() {
        for (String route : WholeBodyReader.ROUTES) {
            Http.Reply r = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + route))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(400, r.status(), route + ": " + r.body());
            assertFalse(Api.json(r.body()).path("error").asText().isEmpty(), route + ": " + r.body());
        }
    }

    @Test
    void aLargeAckBatchArrivesWholeWithAndWithoutContentLength() {
        int n = 3000;  // ~380 KiB: many network chunks
        String pid = UUID.randomUUID().toString();
        StringBuilder sb = new StringBuilder("{\"acknowledgments\":[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"transactionId\":\"t-").append(i).append("-")
                    .append("x".repeat(40)).append("\",\"partitionId\":\"").append(pid)
                    .append("\",\"leaseId\":\"").append(UUID.randomUUID()).append("\",\"status\":\"completed\"}");
        }
        byte[] body = sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        assertTrue(body.length > 300_000);
        for (boolean chunked : new boolean[] {false, true}) {
            HttpRequest.BodyPublisher publisher = chunked
                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                    : HttpRequest.BodyPublishers.ofByteArray(body);
            Http.Reply r = Http.send(HttpRequest.newBuilder(URI.create(Http.base() + "/api/v1/ack/batch"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json").POST(publisher)
                    .build());
            assertEquals(200, r.status(), r.body());
            JsonNode results = Api.json(r.body());
            assertEquals(n, results.size());
            // an unknown partition: every item answered, in request order, none applied
            assertEquals("t-" + (n - 1) + "-" + "x".repeat(40), results.get(n - 1).path("transactionId").asText());
            assertFalse(results.get(0).path("success").asBoolean());
        }
    }
}
