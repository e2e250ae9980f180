package io.queen.shutdown;

import static io.queen.testing.RawHttp.firstHead;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.console.ConsoleHeaders;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Where admission sits in the HTTP pipeline, seen from a draining broker: the checks ahead of it still answer (a
 * non-JSON body 415, a declared length over the limit 413: answers that do no work), the console's refusal
 * carries the console's headers, and a refused push's body is never asked for (no {@code 100 Continue}).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class AdmissionOrderTest {
    @Inject
    DrainState state;

    static String push(String contentType, long length) throws Exception {
        return firstHead(RestAssured.port, "POST /api/v1/push HTTP/1.1", "Content-Type: " + contentType,
                "Content-Length: " + length, "Expect: 100-continue").toLowerCase(Locale.ROOT);
    }

    @Test
    void aDrainingBrokerRefusesAfterTheChecksThatDoNoWork() throws Exception {
        String serving = push("application/json", 2);
        assertTrue(serving.startsWith("http/1.1 100 "), serving);

        state.advance(DrainState.Phase.DRAINING);
        String refused = push("application/json", 2);
        assertTrue(refused.startsWith("http/1.1 503 "), refused);
        assertTrue(refused.contains("\r\nconnection: close\r\n"), refused);
        String notJson = push("text/xml", 4);
        assertTrue(notJson.startsWith("http/1.1 415 "), notJson);
        String tooLarge = push("application/json", 1L << 40);
        assertTrue(tooLarge.startsWith("http/1.1 413 "), tooLarge);
        String console = firstHead(RestAssured.port, "GET / HTTP/1.1");
        assertTrue(console.startsWith("HTTP/1.1 503 "), console);
        assertTrue(console.contains(ConsoleHeaders.POLICY), console);
    }
}
