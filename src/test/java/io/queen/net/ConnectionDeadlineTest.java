package io.queen.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The per-connection deadline on an in-memory channel (150 ms header and keep-alive timeouts): an unfinished
 * HTTP/1.1 head is closed; an HTTP/2 connection, reached by an h2c upgrade (what the JDK's HttpClient does by
 * default) or by the prior-knowledge preface, is left to the server's idle timeout: its binary frames hold no heads,
 * and reading them as HTTP/1 closed such connections in the middle of their traffic.
 */
class ConnectionDeadlineTest {
    static final byte[] FRAMES = {0, 0, 4, 1, 5, 0, 0, 0, 1, (byte) 0x82, (byte) 0x86, (byte) 0x84, 0x41, 0, 0, 8, 6,
        0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};

    static void in(EmbeddedChannel ch, String s) {
        ch.writeInbound(Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII));
    }

    static void out(EmbeddedChannel ch, String s) {
        ch.writeOutbound(Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII));
    }

    static void waitPast(EmbeddedChannel ch, long ms) throws InterruptedException {
        Thread.sleep(ms);
        ch.runScheduledPendingTasks();
        ch.runPendingTasks();
    }

    @Test
    void anUnfinishedHttp1HeadIsClosedAndAFinishedOneIsNot() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(0, 0, 150, 150);
        EmbeddedChannel slow = new EmbeddedChannel(guard.newDeadline());
        in(slow, "GET /health HTTP/1.1\r\nHost: x\r\n");
        waitPast(slow, 300);
        assertFalse(slow.isOpen(), "a head not finished within the header timeout");
        assertEquals(1, guard.timedOut.sum());

        EmbeddedChannel busy = new EmbeddedChannel(guard.newDeadline());
        in(busy, "GET /api/v1/pop/queue/q?wait=true HTTP/1.1\r\nHost: x\r\n\r\n");
        waitPast(busy, 300);
        assertTrue(busy.isOpen(), "a request in progress (a long poll) has no head deadline");
    }

    @Test
    void anH2cUpgradedConnectionOutlivesTheHeadAndKeepAliveTimeouts() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(0, 0, 150, 150);
        EmbeddedChannel ch = new EmbeddedChannel(guard.newDeadline());
        in(ch, "GET /api/v1/pop/queue/q HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAEAAEAAAAIAAAAA\r\n\r\n");
        out(ch, "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n");
        for (int i = 0; i < 4; i++) {
            ch.writeInbound(Unpooled.wrappedBuffer(FRAMES));   // binary frames, no empty line anywhere
            waitPast(ch, 100);
            ch.writeOutbound(Unpooled.wrappedBuffer(FRAMES));
        }
        waitPast(ch, 300);
        assertTrue(ch.isOpen(), "HTTP/2 after the upgrade: the server's idle timeout applies, not the head deadline");
        assertEquals(0, guard.timedOut.sum());
    }

    @Test
    void aPriorKnowledgeHttp2ConnectionIsLeftToTheIdleTimeout() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(0, 0, 150, 150);
        EmbeddedChannel ch = new EmbeddedChannel(guard.newDeadline());
        in(ch, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        for (int i = 0; i < 4; i++) {
            ch.writeOutbound(Unpooled.wrappedBuffer(FRAMES));
            ch.writeInbound(Unpooled.wrappedBuffer(FRAMES));
            waitPast(ch, 100);
        }
        assertTrue(ch.isOpen());
        assertEquals(0, guard.timedOut.sum());
    }
}
