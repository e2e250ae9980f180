package io.queen.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.net.SocketAddress;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The in-memory record of who popped: bounded, user agents cut and cleaned, one popper row per client and group. */
class PopClientsTest {
    static final UUID T = UUID.fromString("00000000-0000-0000-0000-000000000001");

    @Test
    void aLeaseRemembersItsClientAndOldLeasesGiveWay() {
        PopClients c = new PopClients();
        SocketAddress from = SocketAddress.inetSocketAddress(40000, "10.0.0.7");
        for (int i = 0; i < PopClients.MAX_LEASES + 10; i++) {
            c.popped(T, "orders", "g", "lease-" + i, from, "worker/1");
        }
        assertNull(c.lease("lease-0"), "the oldest went first");
        assertEquals("10.0.0.7:40000", c.lease("lease-" + (PopClients.MAX_LEASES + 9)).address());
        assertEquals(PopClients.MAX_LEASES, c.leasesSince(0, Integer.MAX_VALUE).size());
        assertEquals(3, c.leasesSince(0, 3).size(), "the newest few");
        assertEquals(1, c.poppersSince(0).size(), "one client, one group, one queue");
        assertEquals(PopClients.MAX_LEASES + 10, c.poppersSince(0).get(0).pops());
    }

    @Test
    void userAgentsAreCutAndCarryNoControlCharacters() {
        PopClients c = new PopClients();
        c.popped(T, "orders", "g", "l1", null, "evil\r\nX-Injected: 1\u0000" + "a".repeat(500));
        String ua = c.lease("l1").userAgent();
        assertEquals(PopClients.MAX_AGENT_CHARS, ua.length());
        assertEquals("evil??X-Injected: 1?", ua.substring(0, 20));
        assertNull(c.lease("l1").address(), "no address known");
        c.popped(T, "orders", "g", "", null, null);
        assertNull(c.lease(""), "an autoAck pop holds no lease");
    }
}
