package io.queen.queue;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;

/**
 * {@code DELETE /api/v1/resources/queues/:queue} (API spec 3.2): removes the queue with its partitions, segments,
 * hash sidecar, cursors, subscription metadata and dead letters. Deleting an unknown queue is not an error
 * ({@code existed:false}, still 200). Stateless.
 */
@Path("/api/v1/resources/queues/{queue}")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class QueueDeleteResource {
    @Inject QueueDeletion deletion;
    @Inject Callers callers;

    @Access(Access.Level.ADMIN)
    @DELETE
    public Response delete(@PathParam("queue") String queue) throws SQLException {
        String name = Names.requireName(queue, "queue");
        UUID tenant = callers.tenant();
        boolean existed = deletion.delete(tenant, name);
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("deleted", true);
        out.put("queue", name);
        out.put("existed", existed);
        return Json.ok(out);
    }
}
