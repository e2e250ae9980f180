package io.queen.groups;

import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.QueryParams;
import io.queen.api.Times;
import io.queen.status.StatusConfig;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Consumer-group views (API spec 4.9-4.11): the group list, lagging cursors and one group. Offset lag is
 * {@code last_offset - max(committed, log_start - 1)}; time lag is the age of the segment holding the next message
 * to consume. The storage model records no ack time, so {@code lastConsumedAt} is always null, and no consumer
 * heartbeat, so a group's state is {@code Lagging} or {@code Stable}, never {@code Dead}. Stateless, thread-safe.
 */
@Path("/api/v1/consumer-groups")
@Access(Access.Level.READ)
@Tag(name = "consumer-groups")
public class ConsumerGroupViewResource {
    static final double DEFAULT_MIN_LAG_SECONDS = 3600;

    private final ConsumerGroupViewStore store;
    private final StatusConfig limits;
    private final Callers callers;

    ConsumerGroupViewResource(ConsumerGroupViewStore store, StatusConfig limits, Callers callers) {
        this.store = store;
        this.limits = limits;
        this.callers = callers;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @Operation(summary = "Consumer groups, one entry per (group, queue) (JSON array)",
            description = "Lag covers every partition of the queue: where the group has no cursor yet it stands at "
                    + "its subscription start (all: the beginning; new or a timestamp: that time). members counts "
                    + "cursors. Cost: O(partitions of the consumed queues x their groups) plus one segment "
                    + "primary-key probe per lagging position.")
    @APIResponse(responseCode = "200", description = "[{name, topics:[queue], queueName, members, "
            + "partitionsWithLag, totalLag, maxTimeLag, activeLeases, state: Lagging|Stable, subscriptionMode, "
            + "subscriptionTimestamp, subscriptionCreatedAt, storage:\"segments\"}]")
    public Response list() throws SQLException {
        UUID tenant = callers.tenant();
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (ConsumerGroupViewStore.GroupQueue g : store.list(tenant)) {
            ObjectNode o = out.addObject();
            o.put("name", g.group());
            o.putArray("topics").add(g.queue());
            o.put("queueName", g.queue());
            o.put("members", g.members());
            o.put("partitionsWithLag", g.partitionsWithLag());
            o.put("totalLag", g.totalLag());
            o.put("maxTimeLag", g.maxTimeLag());
            o.put("activeLeases", g.leases());
            o.put("state", g.maxTimeLag() > limits.laggingStateSeconds() ? "Lagging" : "Stable");
            o.put("subscriptionMode", g.subscriptionMode());
            o.put("subscriptionTimestamp", Times.millis(g.subscriptionTimestamp()));
            o.put("subscriptionCreatedAt", Times.millis(g.subscriptionCreatedAt()));
            o.put("storage", "segments");
        }
        return Json.ok(out);
    }

    @GET
    @Path("lagging")
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @Operation(summary = "Positions lagging by at least minLagSeconds, largest time lag first (JSON array)",
            description = "A position is a (group, partition) of a queue the group consumes, with or without a "
                    + "cursor. Cost: O(partitions of the consumed queues x their groups) plus one segment "
                    + "primary-key probe per lagging position; "
                    + "at most limit rows (default and maximum queen.status.max-limit, 1000).")
    @APIResponse(responseCode = "200", description = "[{consumer_group, queue_name, partition_name, partition_id, "
            + "worker_id, offset_lag, time_lag_seconds, lag_hours, oldest_unconsumed_at, last_consumed_at}]")
    @APIResponse(responseCode = "400", description = "minLagSeconds not a non-negative number, or a bad limit")
    public Response lagging(
            @Parameter(description = "seconds, default 3600") @QueryParam("minLagSeconds") String minLagParam,
            @Parameter(description = "default and maximum 1000") @QueryParam("limit") String limitParam)
            throws SQLException {
        UUID tenant = callers.tenant();
        double minLag = minLag(minLagParam);
        int limit = Math.min(limits.maxLimit(), QueryParams.intParam(limitParam, "limit", limits.maxLimit(), 1));
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (ConsumerGroupViewStore.Lagging c : store.lagging(tenant, minLag, limit)) {
            ObjectNode o = out.addObject();
            o.put("consumer_group", c.group());
            o.put("queue_name", c.queue());
            o.put("partition_name", c.partition());
            o.put("partition_id", c.partitionId().toString());
            o.put("worker_id", c.workerId());
            o.put("offset_lag", c.offsetLag());
            o.put("time_lag_seconds", Math.floor(c.timeLagSeconds()));
            o.put("lag_hours", c.timeLagSeconds() / 3600.0);
            o.put("oldest_unconsumed_at", Times.millis(c.oldestUnconsumedAt()));
            o.putNull("last_consumed_at");
        }
        return Json.ok(out);
    }

    @GET
    @Path("{group}")
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @Operation(summary = "One group's position in every partition of its queues, keyed by queue name ({} for an "
            + "unknown group)",
            description = "A partition the group has not popped shows where its first pop would start "
                    + "(committedOffset) and what is unread from there. Cost: O(cursors of the tenant) to find the "
                    + "group's (no index on consumer_group), O(partitions of its queues), plus one segment "
                    + "primary-key probe per lagging position.")
    @APIResponse(responseCode = "200", description = "{\"<queue>\": {partitions:[{partition, partitionId, "
            + "workerId, lastConsumedAt, committedOffset, totalConsumed, offsetLag, timeLagSeconds, leaseActive}]}}")
    public Response group(@PathParam("group") String group) throws SQLException {
        UUID tenant = callers.tenant();
        ObjectNode out = Json.MAPPER.createObjectNode();
        if (group.indexOf('\0') >= 0) {
            return Json.ok(out); // PostgreSQL text holds no NUL: no such group can exist
        }
        for (ConsumerGroupViewStore.CursorLag c : store.cursors(tenant, group)) {
            ObjectNode q = (ObjectNode) out.get(c.queue());
            if (q == null) {
                q = out.putObject(c.queue());
                q.putArray("partitions");
            }
            ObjectNode p = ((ArrayNode) q.get("partitions")).addObject();
            p.put("partition", c.partition());
            p.put("partitionId", c.partitionId().toString());
            p.put("workerId", c.workerId());
            p.putNull("lastConsumedAt");
            p.put("committedOffset", c.committed());
            p.put("totalConsumed", c.totalConsumed());
            p.put("offsetLag", c.offsetLag());
            p.put("timeLagSeconds", Math.floor(c.timeLagSeconds()));
            p.put("leaseActive", c.leaseActive());
        }
        return Json.ok(out);
    }

    private static double minLag(String v) {
        if (v == null || v.isBlank()) {
            return DEFAULT_MIN_LAG_SECONDS;
        }
        try {
            double d = Double.parseDouble(v.strip());
            if (d >= 0 && Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // the 400 below names the parameter
        }
        throw ApiException.badRequest("minLagSeconds must be a non-negative number of seconds");
    }
}
