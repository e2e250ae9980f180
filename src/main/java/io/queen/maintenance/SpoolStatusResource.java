package io.queen.maintenance;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.workers.WorkerRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/** {@code GET /api/v1/status/buffers} (API spec 4.7): this broker's push spool. Stateless. */
@Path("/api/v1/status/buffers")
public class SpoolStatusResource {
    @Inject PushSpool spool;
    @Inject ObjectMapper mapper;
    @Inject WorkerRegistry worker;

    @GET
    @Access(Access.Level.READ)
    public Response get() {
        ObjectNode out = mapper.createObjectNode();
        out.put("pending", spool.pending());
        out.put("failed", spool.failedAttempts());
        out.put("dbHealthy", spool.dbHealthy());
        out.put("worker", worker.workerIdOrNull());
        out.set("stats", stats(mapper, spool));
        return Json.ok(out);
    }

    static ObjectNode stats(ObjectMapper mapper, PushSpool spool) {
        ObjectNode s = mapper.createObjectNode();
        s.put("pending", spool.pending());
        s.put("failedDrainAttempts", spool.failedAttempts());
        s.put("drained", spool.drainedTotal());
        s.put("healthy", spool.healthy());
        s.put("dbHealthy", spool.dbHealthy());
        s.put("directory", spool.directory().toAbsolutePath().toString());
        return s;
    }
}
