package io.queen.status;

import jakarta.inject.Inject;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.analytics.TimeRange;
import io.queen.api.Json;
import io.queen.api.Times;
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
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * {@code GET /api/v1/status} (API spec 4.7): the dashboard's summary. What the storage model knows is computed
 * here (queues, message figures, live leases, dead letters); {@code throughput} comes from the per-minute buckets
 * the brokers write (db/015_metrics.sql), bucketed so that the window has at most {@link TimeRange#MAX_POINTS}
 * points, each with what the queues held as it began as sampled then (db/026_metrics_depth.sql: never rebuilt from
 * today's rows, which a replay or a purge changes) and whether it is complete. Stateless, thread-safe.
 */
@Path("/api/v1/status")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class StatusResource {
    static final int TOP_ERRORS = 5;

    @Inject StatusStore store;
    @Inject StatusConfig limits;
    @Inject Callers callers;
    @Inject StatusSnapshots snapshots;

    @GET
    public Response status(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("queue") String queue, @QueryParam("namespace") String namespace,
            @QueryParam("task") String task) throws SQLException {
        UUID tenant = callers.tenant();
        TimeRange.parse(from, to, Duration.ofHours(1));  // 400 before anything is computed or kept
        String q = StatusJson.filter(queue, "queue");
        String ns = StatusJson.filter(namespace, "namespace");
        String tk = StatusJson.filter(task, "task");
        // the window moves with now unless both ends are given: recomputed on every refresh
        return snapshots.serve(tenant, StatusSnapshots.key("status", from, to, q, ns, tk), () -> {
            Instant now = Instant.now();  // before the window's end: the bucket holding that end is never complete
            TimeRange range = TimeRange.parse(from, to, Duration.ofHours(1));
            StatusStore.Totals totals = store.totals(tenant, q, ns, tk);
            StatusStore.QueuePage page = store.queues(tenant, q, ns, tk, null, limits.maxLimit(), 0);
            ObjectNode out = Json.MAPPER.createObjectNode();
            out.putObject("timeRange").put("from", Times.millis(range.from())).put("to", Times.millis(range.to()));
            out.put("bucketMinutes", range.bucketMinutes());
            ArrayNode series = out.putArray("throughput");
            double seconds = range.bucketMinutes() * 60.0;
            Map<Instant, StatusStore.Depth> depth = new HashMap<>();
            for (StatusStore.Depth d : store.depth(tenant, range.fromMinute(), range.toTime(), range.bucketMinutes(),
                    q, ns, tk)) {
                depth.put(d.bucket().toInstant(), d);
            }
            for (StatusStore.Throughput p : store.throughput(tenant, range.fromMinute(), range.toTime(),
                    range.bucketMinutes(), q, ns, tk)) {
                ObjectNode o = series.addObject();
                o.put("timestamp", Times.millis(p.bucket()));
                // a bucket still running has only part of its counts (and none before its flush)
                o.put("complete", !p.bucket().toInstant().plusSeconds(range.bucketMinutes() * 60L).isAfter(now));
                o.put("ingested", p.pushMessages());
                o.put("processed", p.ackMessages());
                o.put("popMessages", p.popMessages());
                o.put("ingestedPerSecond", p.pushMessages() / seconds);
                o.put("processedPerSecond", p.ackMessages() / seconds);
                o.put("popPerSecond", p.popMessages() / seconds);
                o.put("avgLagMs", p.lagCount() == 0 ? 0 : Math.round((double) p.lagSumMs() / p.lagCount()));
                o.put("maxLagMs", p.lagMaxMs());
                o.put("deadLettered", p.deadLettered());
                // what the queues held as the bucket began, as sampled then; null: nothing was sampled
                StatusStore.Depth d = depth.get(p.bucket().toInstant());
                if (d == null) {
                    o.putNull("pending");
                    o.putNull("deadLetters");
                } else {
                    o.put("pending", d.pending());
                    o.put("deadLetters", d.deadLetters());
                }
            }
            out.put("pointCount", series.size());
            ArrayNode qs = out.putArray("queues");
            for (StatusStore.QueueRow r : page.queues()) {
                ObjectNode o = qs.addObject();
                o.put("id", r.id().toString());
                o.put("name", r.name());
                o.put("namespace", r.namespace());
                o.put("task", r.task());
                o.put("partitions", r.partitions());
                o.put("totalConsumed", r.totalConsumed());
            }
            out.put("queuesTotal", page.matching());
            out.set("messages", StatusJson.messages(totals.figures()));
            ObjectNode leases = out.putObject("leases");
            leases.put("active", totals.leases());
            leases.put("partitionsWithLeases", totals.partitionsWithLeases());
            leases.put("totalBatchSize", totals.leasedSpan());
            ObjectNode dlq = out.putObject("deadLetterQueue");
            dlq.put("totalMessages", totals.figures().deadLetter());
            dlq.put("affectedPartitions", totals.dlqPartitions());
            ArrayNode errors = dlq.putArray("topErrors");
            for (StatusStore.ErrorCount e : store.topErrors(tenant, q, ns, tk, TOP_ERRORS)) {
                errors.addObject().put("error", e.error()).put("count", e.count());
            }
            return out;
        });
    }
}
