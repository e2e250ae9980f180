package io.queen.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attacks of a hostile client on the listeners, at small scale against a broker process: idle sockets from a
 * few addresses filling the connection cap (cap 200, 50 slots reserved for addresses holding fewer than 4), sockets
 * that never send a byte (closed after the 1.5 s first-byte timeout, well before the 10 s header timeout), and log
 * floods: bodies with an unreadable chunk size (each answered 400) and unreadable Kafka frames (each closes its
 * connection), logged in one line each and at most 20 lines a minute, never a stack trace.
 */
class HostileConnectionsIT {
    static TestPostgres.Server pg;
    static String db;
    static BrokerProcess broker;
    static int port;
    static int kafkaPort;

    @BeforeAll
    static void start() throws Exception {
        pg = TestPostgres.server();
        db = TestPostgres.createDatabase("hostile");
        kafkaPort = BrokerProcess.freePort();
        broker = BrokerProcess.start("hostile", pg, db, Map.of(
                "QUEEN_HTTP_MAX_CONNECTIONS", "200",
                "QUEEN_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "150",
                "QUEEN_HTTP_RESERVED_CONNECTIONS", "50",
                "QUEEN_HTTP_RESERVED_PER_ADDRESS", "4",
                "QUEEN_HTTP_HEADER_TIMEOUT_MS", "10000",
                "QUEEN_HTTP_FIRST_BYTE_TIMEOUT_MS", "1500",
                "QUEEN_KAFKA_ENABLED", "true",
                "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1"));
        port = broker.port();
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
        TestPostgres.dropDatabase(db);
    }

    static Socket open(String from, int to) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", to), 2000);
        return s;
    }

    @Test
    void idleSocketsFromAFewAddressesLeaveRoomForHealthAndPush() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (String from : List.of("127.0.0.2", "127.0.0.3")) {
                for (int i = 0; i < 150; i++) {
                    Socket s = open(from, port);
                    // one byte of a request head: the header timeout (10 s), not the first-byte one, applies
                    s.getOutputStream().write('G');
                    idle.add(s);
                }
            }
            int open = ConnectionLimitsIT.countOpen(idle);
            // 150 outside the reserve, and in it each address only while it holds fewer than 4
            assertTrue(open <= 150 + 2 * 4, "the reserved 50 of the 200 slots stay free of these addresses: "
                    + open);
            assertTrue(open >= 140, "up to the reserve, idle sockets are accepted: " + open);
            String health = ConnectionLimitsIT.rawRequest("127.0.0.4", port,
                    "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(health.startsWith("HTTP/1.1 200"), health);
            String body = "{\"items\":[{\"queue\":\"hostile\",\"payload\":{\"n\":1}}]}";
            String push = ConnectionLimitsIT.rawRequest("127.0.0.5", port, "POST /api/v1/push HTTP/1.1\r\nHost: x\r\n"
                    + "Connection: close\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\n\r\n" + body);
            assertTrue(push.startsWith("HTTP/1.1 201"), push);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    @Test
    void socketsThatSendNothingAreClosedAfterTheFirstByteTimeout() throws Exception {
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                silent.add(open("127.0.0.6", port));
            }
            long until = System.nanoTime() + 6_000_000_000L;   // the header timeout (10 s) is not reached
            int left = ConnectionLimitsIT.countOpen(silent);
            while (left > 0 && System.nanoTime() < until) {
                Thread.sleep(250);
                left = ConnectionLimitsIT.countOpen(silent);
            }
            assertEquals(0, left, "silent sockets closed by the first-byte timeout");
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    /** The broker's log lines from {@code from} on. */
    static List<String> linesSince(int from) throws IOException {
        List<String> all = broker.logText().lines().toList();
        return all.subList(Math.min(from, all.size()), all.size());
    }

    /** What the broker logged from line {@code before} on: at most 20 lines (and a stray one), no stack trace. */
    static void fewLinesAndNoStackTraceSince(int before) throws Exception {
        Thread.sleep(500);   // lets the broker's log writer catch up before the lines are counted
        List<String> lines = linesSince(before);
        assertTrue(lines.size() <= 21, "at most 20 lines a minute (and a stray one): " + String.join("\n", lines));
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by")),
                "no stack trace: " + String.join("\n", lines));
    }

    static int logLines() throws IOException {
        return (int) broker.logText().lines().count();
    }

    @Test
    void anUnreadableChunkSizeIsA400AndOneLogLineAtMost() throws Exception {
        int before = logLines();
        for (int i = 0; i < 40; i++) {
            try (Socket s = open("127.0.0.7", port)) {
                s.setSoTimeout(5000);
                s.getOutputStream().write(("POST /api/v1/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
                assertTrue(answer.contains("{\"error\":"), answer);
            }
        }
        fewLinesAndNoStackTraceSince(before);
    }

    @Test
    void unreadableKafkaFramesAreLoggedRateLimited() throws Exception {
        int before = logLines();
        for (int i = 0; i < 40; i++) {
            try (Socket s = open("127.0.0.8", kafkaPort)) {
                s.setSoTimeout(5000);
                // a Produce v9 header whose body is 12 bytes of 0xff: unreadable, so the connection is closed
                ByteBuffer frame = ByteBuffer.allocate(4 + 8 + 2 + 12);
                frame.putInt(8 + 2 + 12).putShort((short) 0).putShort((short) 9).putInt(i).putShort((short) -1);
                for (int k = 0; k < 12; k++) {
                    frame.put((byte) 0xff);
                }
                s.getOutputStream().write(frame.array());
                InputStream in = s.getInputStream();
                try {
                    assertEquals(-1, in.read(), "the connection is closed");
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("an unreadable frame left its connection open", e);
                } catch (IOException e) {
                    // reset: closed too
                }
            }
        }
        fewLinesAndNoStackTraceSince(before);
    }
}
