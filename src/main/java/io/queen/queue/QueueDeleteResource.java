package io.queen.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.config.QueenConfig;
import io.queen.metrics.OpsMeter;
import io.queen.push.PushFusion;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * {@code DELETE /api/v1/resources/queues/:queue} (API spec 3.2): removes the queue with its partitions, segments,
 * hash sidecar, cursors, subscription metadata and dead letters. Deleting an unknown queue is not an error
 * ({@code existed:false}, still 200). Stateless.
 */
@Path("/api/v1/resources/queues/{queue}")
public class QueueDeleteResource {
    private static final Logger LOG = Logger.getLogger(QueueDeleteResource.class);

    private final QueueStore store;
    private final PushFusion fusion;
    private final ObjectMapper mapper;
    private final UUID tenant;
    private final OpsMeter meter;

    QueueDeleteResource(QueueStore store, PushFusion fusion, ObjectMapper mapper, QueenConfig config, OpsMeter meter) {
        this.store = store;
        this.meter = meter;
        this.fusion = fusion;
        this.mapper = mapper;
        this.tenant = UUID.fromString(config.defaultTenant());
    }

    @DELETE
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response delete(@PathParam("queue") String queue) throws SQLException {
        String name = Names.requireName(queue, "queue");
        boolean existed = store.delete(tenant, name);
        fusion.forgetQueue(tenant, name);
        if (existed) {
            meter.forget(name);
            LOG.infof("queue deleted: queue=%s", name);
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("deleted", true);
        out.put("queue", name);
        out.put("existed", existed);
        return Json.ok(out);
    }
}
