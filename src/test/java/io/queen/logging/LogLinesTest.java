package io.queen.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Log lines that quote client input stay one line each: a CR/LF in a namespace, a task or a consumer group (or in
 * an exception's message) is written escaped, so no client can forge a line. Reads what the broker's file handler
 * wrote ({@code target/queen-test.log} in the test profile; the console handler has the same filter).
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LogLinesTest {
    private static final Path LOG = Path.of("target", "queen-test.log");
    private static final String FORGED = "\r\nERROR [FORGED] ";

    private static long mark() throws IOException {
        return Files.exists(LOG) ? Files.size(LOG) : 0;
    }

    /** The lines written since {@code from}, once one of them matches {@code until} (handlers may lag a little). */
    private static List<String> linesSince(long from, Predicate<String> until) throws Exception {
        Await.within(() -> readSince(from).stream().anyMatch(until), Duration.ofSeconds(5));
        return readSince(from);
    }

    private static List<String> readSince(long from) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(LOG.toFile(), "r")) {
            byte[] b = new byte[(int) (f.length() - from)];
            f.seek(from);
            f.readFully(b);
            return List.of(new String(b, StandardCharsets.UTF_8).split("\n", -1));
        }
    }

    private static void assertNoForgedLine(List<String> lines) {
        for (String line : lines) {
            assertFalse(line.startsWith("ERROR [FORGED]"), "forged line: " + line);
            assertFalse(line.indexOf('\r') >= 0, "raw CR in: " + line);
        }
    }

    @Test
    void crLfInNamesIsEscapedInEveryLineThatQuotesThem() throws Exception {
        long from = mark();
        String body = Api.M.createObjectNode().put("queue", "log-q").put("namespace", "n" + FORGED + "namespace")
                .put("task", "t" + FORGED + "task").toString();
        Http.Reply r = Http.post("/api/v1/configure", body);
        assertEquals(200, r.status(), r.body());
        String group = "g" + FORGED + "group";
        Api.configure("log-dlq", "{}");
        Api.pushN("log-dlq", "p", "log-", 0, 1);
        JsonNode p = Api.pop("/api/v1/pop/queue/log-dlq?batch=1&wait=false&consumerGroup="
                + URLEncoder.encode(group, StandardCharsets.UTF_8).replace("+", "%20"));
        assertNotNull(p);
        JsonNode m = Api.messages(p).get(0);
        JsonNode ack = Api.ack(m.get("transactionId").asText(), m.get("partitionId").asText(), p.get("leaseId").asText(),
                "dlq", group, "e" + FORGED + "error");
        assertTrue(ack.toString().contains("true"), ack.toString());

        List<String> lines = linesSince(from, l -> l.contains("dead-lettered"));
        assertNoForgedLine(lines);
        assertTrue(lines.stream().anyMatch(l -> l.contains("queue configured")
                && l.contains("namespace=n\\r\\nERROR [FORGED] namespace task=t\\r\\nERROR [FORGED] task")),
                String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.contains("dead-lettered")
                && l.contains("consumerGroup=g\\r\\nERROR [FORGED] group")), String.join("\n", lines));
    }

    @Test
    void exceptionMessagesInALoggedChainAreEscaped() throws Exception {
        long from = mark();
        Exception e = new IllegalStateException("outer" + FORGED + "outer",
                new RuntimeException("cause\nERROR [FORGED] cause\u001b[2J"));
        e.addSuppressed(new IllegalArgumentException("suppressed" + FORGED + "suppressed"));
        Logger.getLogger(LogLinesTest.class).errorf(e, "request failed for %s", "x" + FORGED + "message");
        List<String> lines = linesSince(from, l -> l.contains("request failed for"));
        assertNoForgedLine(lines);
        String text = String.join("\n", lines);
        assertTrue(text.contains("request failed for x\\r\\nERROR [FORGED] message"), text);
        assertTrue(text.contains("java.lang.IllegalStateException: outer\\r\\nERROR [FORGED] outer"), text);
        assertTrue(text.contains("Caused by: java.lang.RuntimeException: cause\\nERROR [FORGED] cause\\u001b[2J"), text);
        assertTrue(text.contains("java.lang.IllegalArgumentException: suppressed\\r\\nERROR [FORGED] suppressed"), text);
        // the stack trace itself is still there, one frame a line
        assertTrue(lines.stream().anyMatch(l -> l.strip().startsWith("at io.queen.logging.LogLinesTest.")), text);
    }
}
