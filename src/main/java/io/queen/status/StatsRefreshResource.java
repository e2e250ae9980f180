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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code POST /api/v1/stats/refresh} (API spec 4.12). Figures are computed from watermarks and cursors; the only
 * kept statistics are the caller's tenant's {@link StatusSnapshots} of costly answers, which this drops so the next
 * read computes them afresh. Thread-safe.
 */
@Path("/api/v1/stats/refresh")
@Access(Access.Level.ADMIN)
@Tag(name = "consumer-groups")
@Produces(MediaType.APPLICATION_JSON)
public class StatsRefreshResource {
    @Inject ObjectMapper mapper;
    @Inject StatusSnapshots snapshots;
    @Inject Callers callers;

    @POST
    @Operation(summary = "Drop the tenant's status snapshots: the next reads compute their figures afresh",
            description = "Body optional ({} or empty). Cost: none now; each dropped view is recomputed on its next "
                    + "read.")
    @APIResponse(responseCode = "200", description = "{success:true, dropped, reason}")
    @APIResponse(responseCode = "400", description = "a body that is not a JSON object")
    public Response refresh(byte[] body) {
        Bodies.objectOrEmpty(mapper, body);
        int dropped = snapshots.invalidate(callers.tenant());
        return Json.ok(Json.MAPPER.createObjectNode().put("success", true).put("dropped", dropped)
                .put("reason", "figures come from watermarks and cursors; the next reads compute them afresh"));
    }
}
