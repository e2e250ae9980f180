package io.queen.maintenance;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;

/**
 * The maintenance switches (API spec 4.13): {@code /api/v1/system/maintenance} (push maintenance: pushes are
 * spooled on each broker's disk and answered {@code buffered}) and {@code /api/v1/system/maintenance/pop} (pops
 * answer 204 without leasing). GETs read the database, the cluster-wide truth, not this broker's cached copy.
 * Stateless.
 */
@Path("/api/v1/system/maintenance")
@Access(Access.Level.ADMIN)
@RunOnVirtualThread
public class MaintenanceResource {
    @Inject MaintenanceSwitches switches;
    @Inject PushSpool spool;
    @Inject ObjectMapper mapper;

    @GET
    public Response get() throws SQLException {
        MaintenanceSwitches.State s = switches.read();
        ObjectNode out = mapper.createObjectNode();
        out.put("maintenanceMode", s.push());
        out.put("popMaintenanceMode", s.pop());
        out.put("bufferedMessages", spool.pending());
        out.put("bufferHealthy", spool.healthy());
        out.set("bufferStats", SpoolStatusResource.stats(mapper, spool));
        return Json.ok(out);
    }

    @POST
    public Response set(byte[] body) throws SQLException {
        MaintenanceSwitches.State s = switches.set(MaintenanceSwitches.PUSH, enabled(body));
        ObjectNode out = mapper.createObjectNode();
        out.put("maintenanceMode", s.push());
        out.put("bufferedMessages", spool.pending());
        out.put("bufferHealthy", spool.healthy());
        out.put("message", s.push()
                ? "Push maintenance on: pushes are buffered on each broker's disk and written to the log when it ends"
                : "Push maintenance off: buffered pushes are being written to the log in order");
        return Json.ok(out);
    }

    @GET
    @Path("/pop")
    public Response getPop() throws SQLException {
        return Json.ok(popAnswer(switches.read()));
    }

    @POST
    @Path("/pop")
    public Response setPop(byte[] body) throws SQLException {
        return Json.ok(popAnswer(switches.set(MaintenanceSwitches.POP, enabled(body))));
    }

    private ObjectNode popAnswer(MaintenanceSwitches.State s) {
        ObjectNode out = mapper.createObjectNode();
        out.put("popMaintenanceMode", s.pop());
        out.put("message", s.pop() ? "Pop maintenance on: pops answer nothing until it ends"
                : "Pop maintenance off: pops are served");
        return out;
    }

    private boolean enabled(byte[] body) {
        JsonNode n = body == null || body.length == 0 ? null : Bodies.objectOrEmpty(mapper, body).get("enabled");
        if (n == null || !n.isBoolean()) {
            throw ApiException.badRequest("enabled (boolean) is required");
        }
        return n.booleanValue();
    }
}
