package io.queen.live;

import jakarta.inject.Inject;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The brokers' live publications ({@link LiveSampler}) summed for one tenant: rates per queue and per broker, and
 * the clients of leases and recent pops. One small read of {@code queen.live_brokers} per call, no figure computed
 * from the log. A tenant sees its own queues; the per-broker totals of every tenant's traffic only the default
 * tenant does (as the broker-wide metrics). Stateless.
 */
@ApplicationScoped
public class LiveBoard {
    @Inject LiveStore store;
    @Inject LiveSampler sampler;
    @Inject Callers callers;

    /** Rows older than this many publish intervals (at least 10 s) are a stopped broker's and are not summed. */
    int freshSeconds() {
        return (int) Math.max(10, sampler.publishMs() * 5 / 1000);
    }

    static JsonNode parse(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The answer of {@code GET /api/v1/live} for {@code tenant}. */
    public ObjectNode live(UUID tenant) throws SQLException {
        String me = tenant.toString();
        boolean cluster = tenant.equals(callers.defaultTenant());
        Map<String, double[]> queues = new TreeMap<>();
        double[] totals = new double[6];
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("at", Instant.now().toString());
        out.put("publishMs", sampler.publishMs());
        out.put("windowMs", sampler.windowMs());
        ArrayNode brokers = Json.MAPPER.createArrayNode();
        for (LiveStore.BrokerRow b : store.fresh(freshSeconds())) {
            JsonNode s = parse(b.sample());
            double[] mine = new double[6];
            for (JsonNode q : s.path("queues")) {
                if (!me.equals(q.path("t").asText(null))) {
                    continue;
                }
                double[] v = values(q);
                add(queues.computeIfAbsent(q.path("q").asText(), k -> new double[6]), v);
                add(mine, v);
            }
            double[] broker = cluster ? values(s.path("totals")) : mine;
            add(totals, broker);
            ObjectNode o = brokers.addObject();
            o.put("hostname", b.hostname());
            o.put("workerId", b.workerId());
            o.put("port", b.port());
            o.put("startedAt", b.startedAt().toString());
            o.put("ageMs", b.ageMs());
            put(o, broker);
        }
        put(out.putObject("totals"), totals);
        ArrayNode qs = out.putArray("queues");
        queues.forEach((name, v) -> put(qs.addObject().put("queue", name), v));
        out.set("brokers", brokers);
        return out;
    }

    private static final String[] FIELDS = {"push", "pop", "ack", "pushed", "popped", "acked"};

    private static double[] values(JsonNode n) {
        double[] v = new double[FIELDS.length];
        for (int i = 0; i < FIELDS.length; i++) {
            v[i] = n.path(FIELDS[i]).asDouble(0);
        }
        return v;
    }

    private static void add(double[] into, double[] v) {
        for (int i = 0; i < into.length; i++) {
            into[i] += v[i];
        }
    }

    private static void put(ObjectNode o, double[] v) {
        for (int i = 0; i < 3; i++) {
            o.put(FIELDS[i], Math.round(v[i] * 100) / 100.0);
        }
        for (int i = 3; i < FIELDS.length; i++) {
            o.put(FIELDS[i], (long) v[i]);
        }
    }

    /** The clients of leases (by lease id) and a group's recent poppers, published by the fresh brokers. */
    public record Clients(Map<String, ObjectNode> leases, List<ObjectNode> poppers) {
    }

    public Clients clients(UUID tenant, String group) throws SQLException {
        Map<String, ObjectNode> leases = new LinkedHashMap<>();
        List<ObjectNode> poppers = new java.util.ArrayList<>();
        String me = tenant.toString();
        for (LiveStore.BrokerRow b : store.fresh(freshSeconds())) {
            JsonNode s = parse(b.sample());
            String broker = b.hostname() + ":" + b.port();
            s.path("leases").properties().forEach(e -> {
                ObjectNode c = ((ObjectNode) e.getValue()).deepCopy();
                c.put("broker", broker);
                leases.put(e.getKey(), c);
            });
            for (JsonNode p : s.path("poppers")) {
                if (me.equals(p.path("t").asText(null)) && group.equals(p.path("g").asText(null))) {
                    ObjectNode o = Json.MAPPER.createObjectNode();
                    o.put("queue", p.path("q").asText(null));
                    o.put("address", p.path("address").asText(null));
                    o.put("userAgent", p.path("userAgent").asText(null));
                    o.put("lastPopAt", p.path("at").asText(null));
                    o.put("pops", p.path("pops").asLong());
                    o.put("broker", broker);
                    poppers.add(o);
                }
            }
        }
        poppers.sort((a, b) -> b.path("lastPopAt").asText().compareTo(a.path("lastPopAt").asText()));
        return new Clients(leases, poppers);
    }
}
