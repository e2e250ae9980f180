package io.queen.status;

import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
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
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/v1/status} (API spec 4.7): the dashboard's summary. What the storage model knows is computed
 * here (queues, message figures, live leases, dead letters); {@code throughput} is a per-minute series and the log
 * keeps no per-minute record, so it is an empty array (as are the worker and error summaries, which this route
 * does not carry). Stateless, thread-safe.
 */
@Path("/api/v1/status")
@Access(Access.Level.READ)
@Tag(name = "status")
public class StatusResource {
    static final int TOP_ERRORS = 5;

    private final StatusStore store;
    private final StatusConfig limits;
    private final Callers callers;

    StatusResource(StatusStore store, StatusConfig limits, Callers callers) {
        this.store = store;
        this.limits = limits;
        this.callers = callers;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @Operation(summary = "Dashboard summary: queues, message figures, leases, dead letters",
            description = "Filters queue, namespace, task; from/to (default the last hour) only bound the "
                    + "throughput series, which is empty (no per-minute buckets in the log). At most "
                    + "queen.status.max-limit (1000) queues are listed (queuesTotal counts all). Cost: "
                    + "O(partitions + cursors + dead letters of the matching queues).")
    @APIResponse(responseCode = "200", description = "{timeRange:{from, to}, bucketMinutes, pointCount, "
            + "throughput:[], queues:[{id, name, namespace, task, partitions, totalConsumed}], queuesTotal, "
            + "messages:{total, pending, processing, completed, failed, deadLetter}, leases:{active, "
            + "partitionsWithLeases, totalBatchSize}, deadLetterQueue:{totalMessages, affectedPartitions, "
            + "topErrors:[{error, count}]}, statsAge}")
    @APIResponse(responseCode = "400", description = "from or to not an ISO-8601 timestamp, or from after to")
    public Response status(@QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("queue") String queue, @QueryParam("namespace") String namespace,
            @QueryParam("task") String task) throws SQLException {
        UUID tenant = callers.tenant();
        Instant t = Times.parse(to, "to", Instant.now());
        Instant f = Times.parse(from, "from", t.minus(Duration.ofHours(1)));
        if (f.isAfter(t)) {
            throw ApiException.badRequest("from must not be after to");
        }
        String q = StatusJson.filter(queue, "queue");
        String ns = StatusJson.filter(namespace, "namespace");
        String tk = StatusJson.filter(task, "task");
        StatusStore.Totals totals = store.totals(tenant, q, ns, tk);
        StatusStore.QueuePage page = store.queues(tenant, q, ns, tk, null, limits.maxLimit(), 0);
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.putObject("timeRange").put("from", Times.millis(f)).put("to", Times.millis(t));
        out.put("bucketMinutes", 1);
        out.put("pointCount", 0);
        out.putArray("throughput");
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
        out.put("statsAge", 0);
        return Json.ok(out);
    }
}
