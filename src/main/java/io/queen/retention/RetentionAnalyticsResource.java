package io.queen.retention;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code GET /api/v1/analytics/retention} (API spec 4.8): what retention removed, from retention_history. The
 * dashboard shape ({@code timeRange, bucketMinutes, series, totals}) plus {@code queues}: per queue and type.
 * Lives here rather than in {@code admin} because retention_history is this feature's table. Stateless.
 */
@Path("/api/v1/analytics/retention")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class RetentionAnalyticsResource {
    @Inject RetentionStore store;
    @Inject Callers callers;

    @Access(Access.Level.READ)
    @GET
    public Response retention(@QueryParam("queue") String queue, @QueryParam("from") String fromParam,
            @QueryParam("to") String toParam) throws SQLException {
        Instant to = Times.parse(toParam, "to", Instant.now());
        Instant from = Times.parse(fromParam, "from", to.minus(Duration.ofHours(1)));
        if (from.isAfter(to)) {
            throw ApiException.badRequest("from must not be after to");
        }
        String q = queue == null || queue.isBlank() ? null : queue;
        int bucket = bucketMinutes(Duration.between(from, to));

        ObjectNode out = Json.MAPPER.createObjectNode();
        ObjectNode range = out.putObject("timeRange");
        range.put("from", Times.millis(from));
        range.put("to", Times.millis(to));
        out.put("bucketMinutes", bucket);

        Map<OffsetDateTime, ObjectNode> buckets = new LinkedHashMap<>();
        ArrayNode series = out.putArray("series");
        for (RetentionStore.SeriesRow r : store.series(callers.tenant(), q, from, to, bucket)) {
            ObjectNode b = buckets.computeIfAbsent(r.bucket(), k -> {
                ObjectNode n = series.addObject();
                n.put("bucket", Times.millis(k));
                zero(n);
                return n;
            });
            add(b, r.type(), r.messages(), r.events());
        }
        ObjectNode totals = out.putObject("totals");
        zero(totals);
        Map<String, ObjectNode> perQueue = new LinkedHashMap<>();
        ArrayNode queues = out.putArray("queues");
        ArrayNode byType = out.putArray("byType");
        List<RetentionStore.HistoryRow> rows = store.history(callers.tenant(), q, from, to);
        for (RetentionStore.HistoryRow r : rows) {
            add(totals, r.type(), r.messages(), r.events());
            ObjectNode qn = perQueue.computeIfAbsent(r.queue(), k -> {
                ObjectNode n = queues.addObject();
                n.put("queue", k);
                zero(n);
                return n;
            });
            add(qn, r.type(), r.messages(), r.events());
            ObjectNode t = byType.addObject();
            t.put("queue", r.queue());
            t.put("type", r.type());
            t.put("messages", r.messages());
            t.put("events", r.events());
            t.put("firstAt", Times.millis(r.firstAt()));
            t.put("lastAt", Times.millis(r.lastAt()));
        }
        return Json.ok(out);
    }

    private static int bucketMinutes(Duration range) {
        long h = range.toHours();
        return h <= 1 ? 1 : h <= 6 ? 5 : h <= 24 ? 15 : h <= 24 * 7 ? 60 : 1440;
    }

    private static void zero(ObjectNode n) {
        n.put("retentionMsgs", 0L);
        n.put("completedRetentionMsgs", 0L);
        n.put("evictionMsgs", 0L);
        n.put("totalMsgs", 0L);
        n.put("partitionsDeleted", 0L);
        n.put("eventCount", 0L);
    }

    private static void add(ObjectNode n, String type, long messages, long events) {
        String key = switch (type) {
            case "retention" -> "retentionMsgs";
            case "completed_retention" -> "completedRetentionMsgs";
            case "max_wait_time_eviction" -> "evictionMsgs";
            default -> null;
        };
        if (key != null) {
            n.put(key, n.get(key).asLong() + messages);
            n.put("totalMsgs", n.get("totalMsgs").asLong() + messages);
        } else if ("__partition_deleted__".equals(type)) {
            n.put("partitionsDeleted", n.get("partitionsDeleted").asLong() + events);
        }
        n.put("eventCount", n.get("eventCount").asLong() + events);
    }
}
