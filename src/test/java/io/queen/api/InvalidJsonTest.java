package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A body that is not well-formed JSON answers {@code 400 Invalid JSON at line L, column C: <short reason>} on
 * every route that reads JSON, with nothing of the parser's internals (source descriptions, feature or method
 * names) in it.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class InvalidJsonTest {
    static final List<String> ROUTES = List.of("/api/v1/push", "/api/v1/ack", "/api/v1/ack/batch",
            "/api/v1/transaction", "/api/v1/configure", "/api/v1/traces", "/api/v1/fetch",
            "/api/v1/lease/0190f000-0000-7000-8000-000000000000/extend", "/api/v1/consumer-groups/g/subscription",
            "/api/v1/consumer-groups/g/queues/q/seek", "/api/v1/consumer-groups/g/queues/q/partitions/p/seek",
            "/api/v1/dlq/0190f000-0000-7000-8000-000000000000/replay", "/api/v1/system/maintenance",
            "/api/v1/system/maintenance/pop", "/api/v1/stats/refresh", "/streams/v1/queries",
            "/streams/v1/state/get", "/streams/v1/cycle");
    static final Pattern ANSWER = Pattern.compile("Invalid JSON at line \\d+, column \\d+: [^\\p{Cntrl}]{3,170}");

    @Test
    void everyRouteThatReadsJsonAnswersWhereAndWhyWithoutParserInternals() {
        // an unclosed array (the parser's message names a nested "start marker" location), a bad token, a
        // stray character on line 2, an unterminated string
        List<String> bodies = List.of("{\"items\":[", "{not json}", "{\n  \"a\": 1,,\n}", "{\"a\":\"x");
        for (String route : ROUTES) {
            for (String body : bodies) {
                Http.Reply r = Http.post(route, body);
                assertEquals(400, r.status(), route + " " + body + " -> " + r.body());
                String error = Api.json(r.body()).get("error").asText();
                assertTrue(ANSWER.matcher(error).matches(), route + " " + body + " -> " + error);
                for (String internal : List.of("Source", "REDACTED", "StreamReadFeature", "`", "start marker")) {
                    assertFalse(error.contains(internal), route + " " + body + " -> " + error);
                }
            }
        }
    }

    @Test
    void theLineAndColumnPointAtTheFault() {
        Http.Reply r = Http.post("/api/v1/push", "{\n  \"items\": [\n    {\"queue\": \"q\",, \"payload\": 1}\n  ]\n}");
        assertEquals(400, r.status(), r.body());
        String error = Api.json(r.body()).get("error").asText();
        assertTrue(error.startsWith("Invalid JSON at line 3, column 19: Unexpected character (',' (code 44))"), error);
    }

    @Test
    void aReasonLosesTheParserLocationsAndNames() {
        assertEquals("Unexpected end-of-input: expected close marker for Array",
                InvalidJson.reason("Unexpected end-of-input: expected close marker for Array (start marker at"
                        + " [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1,"
                        + " column: 10])"));
        assertEquals("String value length (30) exceeds the maximum allowed (20)",
                InvalidJson.reason("String value length (30) exceeds the maximum allowed (20, from"
                        + " `StreamReadConstraints.getMaxStringLength()`)"));
        assertEquals("Unexpected character", InvalidJson.reason("Unexpected character\n at [Source: x; line: 1]"));
        assertEquals("malformed input", InvalidJson.reason(null));
        assertEquals(InvalidJson.MAX_REASON + 3, InvalidJson.reason("x".repeat(500)).length());
    }
}
