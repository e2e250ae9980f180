package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client that closes its connection in the middle of its request body is not a failure of the broker: one debug
 * line, no error and no stack trace, whether the body was being read whole (push) or streamed to a resource (ack),
 * with a declared length or chunked.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ClientGoneTest {
    static final Logger QUEEN = Logger.getLogger("io.queen");
    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    Level before;

    @BeforeEach
    void listen() {
        before = QUEEN.getLevel();
        QUEEN.setLevel(Level.FINE);
        QUEEN.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        QUEEN.removeHandler(capture);
        QUEEN.setLevel(before);
    }

    long wentAway() {
        return records.stream().filter(r -> r.getMessage() != null && r.getMessage().contains("client went away"))
                .count();
    }

    List<LogRecord> warnings() {
        return records.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).toList();
    }

    void abandon(String path, String framing, byte[] part) throws Exception {
        long seen = wentAway();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", RestAssured.port), 5000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Expect: 100-continue\r\n" + framing + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // the broker's 100 Continue says it is reading the body: the close below comes mid-body, not before
            assertTrue(head(s.getInputStream()).startsWith("HTTP/1.1 100"), path);
            out.write(part);
            out.flush();
        }
        // the broker sees the close asynchronously: wait for its line (or its error)
        Await.within(() -> wentAway() != seen || !warnings().isEmpty(), Duration.ofSeconds(30));
        assertEquals(List.of(), warnings().stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": "
                + r.getMessage() + " " + r.getThrown()).toList(), path + " " + framing);
        assertEquals(seen + 1, wentAway(), "one debug line for " + path + " " + framing);
        assertTrue(records.stream().filter(r -> r.getMessage() != null && r.getMessage().contains("went away"))
                .allMatch(r -> r.getThrown() == null && r.getLevel().intValue() < Level.INFO.intValue()));
    }

    static String head(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        while (!b.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    @Test
    void aClientClosingMidBodyIsADebugLine() throws Exception {
        byte[] start = "{\"items\":[{\"queue\":\"gone\",\"payload\":\"".getBytes(StandardCharsets.US_ASCII);
        // push reads its body whole before the resource runs; ack and configure stream it to the resource
        for (String path : new String[] {"/api/v1/push", "/api/v1/ack", "/api/v1/configure"}) {
            abandon(path, "Content-Length: 100000\r\n", start);
            byte[] chunk = ("1000\r\n" + new String(start, StandardCharsets.US_ASCII)).getBytes(StandardCharsets.US_ASCII);
            abandon(path, "Transfer-Encoding: chunked\r\n", chunk);
        }
    }
}
