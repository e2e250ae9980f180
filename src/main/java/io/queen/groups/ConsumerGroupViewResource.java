package io.queen.groups;

import jakarta.inject.Inject;
import io.queen.api.Paging;
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

/**
 * Consumer-group views (API spec 4.9-4.11): the group list, lagging cursors and one group. Offset lag is
 * {@code last_offset - max(committed, log_start - 1)}; time lag is the age of the segment holding the next message
 * to consume. The storage model records no ack time, so {@code lastConsumedAt} is always null, and no consumer
 * heartbeat, so a group's state is {@code Lagging} or {@code Stable}, never {@code Dead}. Stateless, thread-safe.
 */
@Path("/api/v1/consumer-groups")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class ConsumerGroupViewResource {
    static final double DEFAULT_MIN_LAG_SECONDS = 3600;

    @Inject ConsumerGroupViewStore store;
    @Inject StatusConfig limits;
    @Inject Callers callers;

    @GET
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
    public Response lagging(
            @QueryParam("minLagSeconds") String minLagParam,
            @QueryParam("limit") String limitParam)
            throws SQLException {
        UUID tenant = callers.tenant();
        double minLag = minLag(minLagParam);
        // no offset: the default limit is the maximum
        int limit = Paging.of(limitParam, null, limits.maxLimit(), limits.maxLimit()).limit();
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
