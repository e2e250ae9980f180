package io.queen.ack;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.ErrorMappers;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.lease.LeaseDirectory;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;

/**
 * {@code POST /api/v1/lease/:leaseId/extend} (API spec 3.9): extends every live lease held under the id to
 * GREATEST(current, now + seconds). Answers an object (Python calls {@code .get} on it); an absent body is
 * {@code {}}. 404 when no cursor holds the lease, 409 when it exists but has expired (never revived).
 */
@Path("/api/v1/lease/{leaseId}/extend")
@RunOnVirtualThread
public class LeaseResource {
    static final int MAX_SECONDS = 3600;

    @Inject AckStore store;
    @Inject LeaseDirectory directory;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @Access(Access.Level.WRITE)
    @POST
    public Response extend(@PathParam("leaseId") String leaseId, byte[] body) throws SQLException {
        JsonNode req = Bodies.objectOrEmpty(mapper, body);
        int seconds = 60;
        JsonNode s = req.get("seconds");
        if (s != null && !s.isNull()) {
            if (!s.isIntegralNumber() || s.asLong() < 1 || s.asLong() > MAX_SECONDS) {
                throw ApiException.badRequest("seconds must be an integer between 1 and " + MAX_SECONDS);
            }
            seconds = s.intValue();
        }
        AckStore.Renewal r = store.renew(callers.tenant(), leaseId, seconds, directory.partitionsOf(leaseId));
        if (r.renewed() == 0) {
            return r.expired() > 0 ? ErrorMappers.error(409, "Lease already expired")
                    : ErrorMappers.error(404, "Lease not found");
        }
        String at = Times.millis(r.newExpiry());
        ObjectNode out = mapper.createObjectNode();
        out.put("leaseId", leaseId);
        out.put("success", true);
        out.put("newExpiresAt", at);
        out.put("expiresAt", at);
        out.put("renewed", r.renewed());
        return Json.ok(out);
    }
}
