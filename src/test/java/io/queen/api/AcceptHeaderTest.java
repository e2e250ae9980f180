package io.queen.api;

import static io.queen.testing.Api.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * API spec 1.2/1.3: a request's {@code Accept} is ignored. Every route of the OpenAPI document (which
 * {@link OpenApiTest} checks covers every JAX-RS route) answers its one type, JSON, whatever the header says; only
 * {@code /metrics/prometheus} negotiates, between the text format (the default) and OpenMetrics.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class AcceptHeaderTest {
    static final List<String> ACCEPTS = List.of("application/json", "text/plain", "text/html", "application/xml",
            "*/*", "garbage", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    record Answer(int status, String contentType, String body) {
    }

    static Answer send(String method, String path, String accept) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(Http.base() + path)).timeout(Duration.ofSeconds(60));
        if (accept != null) {
            b.header("Accept", accept);
        }
        if (method.equals("POST") || method.equals("PUT")) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString("{}"));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
    }

    @Test
    void everyRouteAnswersJsonWhateverTheAccept() throws Exception {
        JsonNode paths = json(Http.get("/q/openapi?format=json").body()).get("paths");
        List<String> wrong = new ArrayList<>();
        int routes = 0;
        for (Iterator<String> it = paths.fieldNames(); it.hasNext(); ) {
            String template = it.next();
            // path parameters get a value no route knows: a 400 or 404 is an answer too, only never a 406
            String path = template.replaceAll("\\{[^}]+}", "accept-probe");
            for (Iterator<String> ms = paths.get(template).fieldNames(); ms.hasNext(); ) {
                String method = ms.next().toUpperCase(Locale.ROOT);
                if (!List.of("GET", "POST", "PUT", "DELETE").contains(method)) {
                    continue;
                }
                routes++;
                for (String accept : ACCEPTS) {
                    Answer a = send(method, path, accept);
                    if (a.status() == 406 || !a.body().isEmpty() && !a.contentType().startsWith("application/json")) {
                        wrong.add(method + " " + path + " Accept: " + accept + " -> " + a.status() + " "
                                + a.contentType());
                    }
                }
            }
        }
        // a floor, so that a broken document cannot pass by listing nothing
        assertTrue(routes >= 55, "routes in the OpenAPI document: " + routes);
        assertEquals(List.of(), wrong);
    }

    @Test
    void prometheusIsTheTextFormatUnlessOpenMetricsIsPreferred() throws Exception {
        List<String> textFormat = new ArrayList<>(ACCEPTS);
        textFormat.add(null);
        textFormat.add("text/plain;version=0.0.4;q=1,*/*;q=0.1");
        textFormat.add("text/plain, application/openmetrics-text");
        textFormat.add("application/openmetrics-text; version=0.0.1");
        textFormat.add("application/openmetrics-text;q=x");
        for (String accept : textFormat) {
            Answer a = send("GET", "/metrics/prometheus", accept);
            assertEquals(200, a.status(), "Accept: " + accept);
            assertEquals(TEXT, a.contentType(), "Accept: " + accept);
            assertTrue(a.body().contains("# TYPE queen_uptime_seconds gauge"), a.body());
            assertTrue(!a.body().contains("# EOF"), "text format has no EOF marker");
        }
        for (String accept : List.of("application/openmetrics-text", "application/openmetrics-text; version=1.0.0",
                // what a Prometheus 2.x server sends
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                        + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")) {
            Answer a = send("GET", "/metrics/prometheus", accept);
            assertEquals(200, a.status(), "Accept: " + accept);
            assertEquals(OPENMETRICS, a.contentType(), "Accept: " + accept);
            assertTrue(a.body().strip().endsWith("# EOF"), "OpenMetrics ends with # EOF");
        }
    }

    @Test
    void openApiStillNegotiatesItsFormat() throws Exception {
        Answer a = send("GET", "/q/openapi", "application/json");
        assertEquals(200, a.status());
        assertTrue(a.contentType().startsWith("application/json"), a.contentType());
        assertTrue(a.body().strip().startsWith("{"), a.body());
    }
}
