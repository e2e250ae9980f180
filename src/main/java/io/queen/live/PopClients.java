package io.queen.live;

import io.vertx.core.net.SocketAddress;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Who popped from this broker: the client address and user agent that took each recent lease, and per (tenant,
 * queue, group, address, user agent) the time of the last pop and how many pops delivered. The console's member
 * list joins the leases of the cursor rows with these (each broker publishes its own through {@link LiveSampler}).
 * Memory only, never the database: the pop path pays one short synchronized map update per pop that delivered.
 *
 * <p>Invariants: at most {@link #MAX_LEASES} leases and {@link #MAX_POPPERS} poppers (oldest dropped); a user agent
 * is cut to {@link #MAX_AGENT_CHARS} characters and control characters are replaced. Thread-safe (synchronized).
 */
@ApplicationScoped
public class PopClients {
    static final int MAX_LEASES = 4096;
    static final int MAX_POPPERS = 512;
    static final int MAX_AGENT_CHARS = 200;

    /** The client of one lease. */
    public record Client(String address, String userAgent, long atMs) {
    }

    /** One client's pops of one group on one queue. */
    public record Popper(UUID tenant, String queue, String group, String address, String userAgent, long lastMs,
            long pops) {
    }

    private record Key(UUID tenant, String queue, String group, String address, String userAgent) {
    }

    private final Map<String, Client> leases = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Client> eldest) {
            return size() > MAX_LEASES;
        }
    };
    private final Map<Key, long[]> poppers = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, long[]> eldest) {
            return size() > MAX_POPPERS;
        }
    };

    /** A pop delivered under {@code leaseId} ("" with autoAck) to the client at {@code from}. */
    public void popped(UUID tenant, String queue, String group, String leaseId, SocketAddress from, String userAgent) {
        String address = from == null ? null : from.hostAddress() + ":" + from.port();
        String agent = agent(userAgent);
        long now = System.currentTimeMillis();
        Key key = new Key(tenant, queue, group, address, agent);
        synchronized (this) {
            if (leaseId != null && !leaseId.isEmpty()) {
                leases.put(leaseId, new Client(address, agent, now));
            }
            long[] v = poppers.computeIfAbsent(key, k -> new long[2]);
            v[0] = now;
            v[1]++;
        }
    }

    static String agent(String ua) {
        if (ua == null) {
            return null;
        }
        String s = ua.length() > MAX_AGENT_CHARS ? ua.substring(0, MAX_AGENT_CHARS) : ua;
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '?' : c);
        }
        return b.toString();
    }

    /** The leases taken since {@code sinceMs}, newest last, at most {@code max}. */
    public synchronized Map<String, Client> leasesSince(long sinceMs, int max) {
        List<Map.Entry<String, Client>> recent = new ArrayList<>();
        for (Map.Entry<String, Client> e : leases.entrySet()) {
            if (e.getValue().atMs() >= sinceMs) {
                recent.add(e);
            }
        }
        Map<String, Client> out = new LinkedHashMap<>();
        for (Map.Entry<String, Client> e : recent.subList(Math.max(0, recent.size() - max), recent.size())) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** The poppers seen since {@code sinceMs}. */
    public synchronized List<Popper> poppersSince(long sinceMs) {
        List<Popper> out = new ArrayList<>();
        for (Map.Entry<Key, long[]> e : poppers.entrySet()) {
            if (e.getValue()[0] >= sinceMs) {
                Key k = e.getKey();
                out.add(new Popper(k.tenant(), k.queue(), k.group(), k.address(), k.userAgent(), e.getValue()[0],
                        e.getValue()[1]));
            }
        }
        return out;
    }

    /** The client that took {@code leaseId} on this broker, or null. */
    public synchronized Client lease(String leaseId) {
        return leases.get(Objects.requireNonNull(leaseId));
    }
}
