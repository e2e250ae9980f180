package io.queen.status;

import jakarta.inject.Inject;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.time.Instant;
import java.util.UUID;

/**
 * {@code GET /api/v1/resources/overview|queues|namespaces|tasks} (API spec 4.1). Figures are offset arithmetic on
 * watermarks and cursors; a costly answer is served from a {@link StatusSnapshots} snapshot ({@code statsAge} says
 * how old, 0 when fresh). Thread-safe.
 */
@Path("/api/v1/resources")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class ResourcesResource {
    /** Complete minutes the overview's rates average over. */
    static final int RATE_MINUTES = 5;

    @Inject StatusStore store;
    @Inject Callers callers;
    @Inject StatusSnapshots snapshots;
    @Inject QueueListing listing;

    @GET
    @Path("overview")
    public Response overview() throws SQLException {
        UUID tenant = callers.tenant();
        return snapshots.serve(tenant, "overview", () -> {
            StatusStore.Totals t = store.totals(tenant, null, null, null);
            StatusStore.LagStats lag = store.lagStats(tenant);
            ObjectNode out = Json.MAPPER.createObjectNode();
            out.put("queues", t.queues());
            out.put("partitions", t.partitions());
            out.put("namespaces", t.namespaces());
            out.put("tasks", t.tasks());
            out.set("messages", StatusJson.messages(t.figures()));
            ObjectNode l = out.putObject("lag");
            ObjectNode time = l.putObject("time");
            time.put("avg", lag.timeAvg());
            time.put("median", lag.timeMedian());
            time.put("min", lag.timeMin());
            time.put("max", lag.timeMax());
            ObjectNode off = l.putObject("offset");
            off.put("avg", lag.offsetAvg());
            off.put("median", lag.offsetMedian());
            off.put("min", lag.offsetMin());
            off.put("max", lag.offsetMax());
            // rates come from the per-minute buckets: the log's watermarks say how much, not how fast
            double[] rates = store.recentRates(tenant, RATE_MINUTES);
            ObjectNode tp = out.putObject("throughput");
            tp.put("ingestedPerSecond", rates[0]);
            tp.put("processedPerSecond", rates[1]);
            out.put("timestamp", Times.millis(Instant.now()));
            return out;
        });
    }

    @GET
    @Path("queues")
    public Response queues(@QueryParam("namespace") String namespace, @QueryParam("task") String task,
            @QueryParam("search") String search,
            @QueryParam("limit") String limitParam,
            @QueryParam("offset") String offsetParam) throws SQLException {
        return listing.serve(callers.tenant(), "resources/queues", namespace, task, search, limitParam, offsetParam);
    }

    @GET
    @Path("namespaces")
    public Response namespaces() throws SQLException {
        UUID tenant = callers.tenant();
        return snapshots.serve(tenant, "namespaces", () -> rollup(tenant, "namespace", "namespaces"));
    }

    @GET
    @Path("tasks")
    public Response tasks() throws SQLException {
        UUID tenant = callers.tenant();
        return snapshots.serve(tenant, "tasks", () -> rollup(tenant, "task", "tasks"));
    }

    private ObjectNode rollup(UUID tenant, String by, String key) throws SQLException {
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode arr = out.putArray(key);
        for (StatusStore.Rollup r : store.rollup(tenant, by)) {
            ObjectNode o = arr.addObject();
            o.put(by, r.key());
            o.put("queues", r.queues());
            o.put("partitions", r.partitions());
            o.putObject("messages").put("total", r.total()).put("pending", r.pending());
        }
        return out;
    }
}
