package io.queen.queue;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * {@code POST /api/v1/resources/queues/:queue/purge}: removes every message the queue holds now and keeps the
 * queue, its configuration, consumer groups and dead letters (a message pushed during the purge may stay). Admin,
 * as the queue delete. Stateless.
 */
@Path("/api/v1/resources/queues/{queue}/purge")
public class QueuePurgeResource {
    private static final Logger LOG = Logger.getLogger(QueuePurgeResource.class);
    /** Segments deleted per partition lock: one retention step's size. */
    static final int STEP_SEGMENTS = 1000;

    @Inject QueueStore store;
    @Inject Callers callers;

    @Access(Access.Level.ADMIN)
    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response purge(@PathParam("queue") String queue) throws SQLException {
        String name = Names.requireName(queue, "queue");
        UUID tenant = callers.tenant();
        QueueStore.Purged p = store.purge(tenant, name, STEP_SEGMENTS);
        if (!p.existed()) {
            throw ApiException.notFound("Queue not found");
        }
        LOG.infof("queue purged: tenant=%s queue=%s messages=%d", tenant, name, p.messages());
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("purged", true);
        out.put("queue", name);
        out.put("partitions", p.partitions());
        out.put("messages", p.messages());
        return Json.ok(out);
    }
}
