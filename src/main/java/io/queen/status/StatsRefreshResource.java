package io.queen.status;

import jakarta.inject.Inject;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.queen.api.Bodies;
import io.queen.api.Json;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /api/v1/stats/refresh} (API spec 4.12). Figures are computed from watermarks and cursors; the only
 * kept statistics are the caller's tenant's {@link StatusSnapshots} of costly answers, which this drops so the next
 * read computes them afresh. Thread-safe.
 */
@Path("/api/v1/stats/refresh")
@Access(Access.Level.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
public class StatsRefreshResource {
    @Inject ObjectMapper mapper;
    @Inject StatusSnapshots snapshots;
    @Inject Callers callers;

    @POST
    public Response refresh(byte[] body) {
        Bodies.objectOrEmpty(mapper, body);
        int dropped = snapshots.invalidate(callers.tenant());
        return Json.ok(Json.MAPPER.createObjectNode().put("success", true).put("dropped", dropped)
                .put("reason", "figures come from watermarks and cursors; the next reads compute them afresh"));
    }
}
