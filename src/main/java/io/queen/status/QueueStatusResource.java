package io.queen.status;

import jakarta.inject.Inject;
import io.queen.api.Paging;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.browse.MessageBrowser;
import io.queen.api.Json;
import io.queen.api.Times;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code GET /api/v1/status/queues}, {@code /status/queues/:queue} and {@code /status/queues/:queue/messages}
 * (API spec 4.7). Figures are offset arithmetic; the message list pages through the message browse (the one route
 * here that decodes segments, bounded by limit + offset). Stateless, thread-safe.
 */
@Path("/api/v1/status/queues")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class QueueStatusResource {
    static final int DEFAULT_MESSAGE_LIMIT = 50;

    @Inject StatusStore store;
    @Inject MessageBrowser browser;
    @Inject StatusConfig limits;
    @Inject Callers callers;
    @Inject StatusSnapshots snapshots;
    @Inject QueueListing listing;

    @GET
    public Response list(@QueryParam("namespace") String namespace, @QueryParam("task") String task,
            @QueryParam("limit") String limitParam,
            @QueryParam("offset") String offsetParam) throws SQLException {
        return listing.serve(callers.tenant(), "status/queues", namespace, task, null, limitParam, offsetParam);
    }

    @GET
    @Path("{queue}")
    public Response detail(@PathParam("queue") String name,
            @QueryParam("includePartitions") String includePartitions) throws SQLException {
        UUID tenant = callers.tenant();
        return snapshots.serve(tenant, StatusSnapshots.key("status/queue", name), () -> {
            StatusStore.Queue q = QueueResource.requireQueue(store, tenant, name);
            List<StatusStore.PartitionRow> parts = store.partitions(q.id());
            ObjectNode out = Json.MAPPER.createObjectNode();
            ObjectNode qo = StatusJson.queueHead(out.putObject("queue"), q);
            ObjectNode cfg = qo.putObject("config");
            JsonNode options = q.config();
            cfg.set("leaseTime", options.get("leaseTime"));
            cfg.set("retryLimit", options.get("retryLimit"));
            cfg.set("retryDelay", options.get("retryDelay"));
            cfg.set("ttl", options.get("ttl"));
            cfg.set("maxQueueSize", options.get("maxSize"));
            cfg.set("deadLetterQueue", options.get("deadLetterQueue"));
            qo.put("storage", "segments");
            ArrayNode ps = out.putArray("partitions");
            for (StatusStore.PartitionRow p : parts) {
                ObjectNode o = StatusJson.partitionHead(ps, p);
                o.set("messages", StatusJson.messages(p.figures()));
                o.set("stats", StatusJson.messages(p.figures()));
                o.putObject("cursor").put("totalConsumed", p.totalConsumed()).put("consumers", p.cursors())
                        .put("activeLeases", p.leases());
                // last push, quantized to 1 s by the allocator (the column is indexed, see storage model)
                o.put("lastActivity", Times.millis(p.lastWriteAt()));
                o.put("oldestMessage", Times.millis(p.oldestAt()));
                o.put("newestMessage", Times.millis(p.newestAt()));
            }
            StatusStore.Figures t = QueueResource.sum(parts);
            ObjectNode totals = out.putObject("totals");
            totals.set("messages", StatusJson.messages(t));
            totals.setAll(StatusJson.messages(t));
            return out;
        });
    }

    @GET
    @Path("{queue}/messages")
    public Response messages(@PathParam("queue") String name,
            @QueryParam("limit") String limitParam,
            @QueryParam("offset") String offsetParam) throws SQLException {
        UUID tenant = callers.tenant();
        Paging paging = Paging.of(limitParam, offsetParam, DEFAULT_MESSAGE_LIMIT, limits.maxLimit());
        StatusStore.Queue q = QueueResource.requireQueue(store, tenant, name);
        ObjectNode page = browser.list(tenant, new MessageBrowser.Filter(q.name(), null, null, null, null,
                Instant.EPOCH, Instant.now(), paging.limit(), paging.offset()));
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (JsonNode m : page.get("messages")) {
            ObjectNode o = out.addObject();
            for (String k : List.of("id", "transactionId", "partitionId", "queuePath", "queue", "partition", "status",
                    "createdAt")) {
                o.set(k, m.get(k));
            }
        }
        return Json.ok(out);
    }
}
