package io.queen.status;

import io.queen.auth.Access;
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
 * {@code POST /api/v1/stats/refresh} (API spec 4.12). Every figure of the status and consumer-group views is
 * computed from watermarks and cursors at request time, so there is no cached statistic to recompute: the route
 * answers at once and touches nothing. Stateless.
 */
@Path("/api/v1/stats/refresh")
@Access(Access.Level.ADMIN)
@Tag(name = "consumer-groups")
public class StatsRefreshResource {
    private final ObjectMapper mapper;

    StatsRefreshResource(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Recompute cached statistics (nothing is cached: a no-op)",
            description = "Body optional ({} or empty). Cost: none.")
    @APIResponse(responseCode = "200", description = "{success:true, reason}")
    @APIResponse(responseCode = "400", description = "a body that is not a JSON object")
    public Response refresh(byte[] body) {
        Bodies.objectOrEmpty(mapper, body);
        return Json.ok(Json.MAPPER.createObjectNode().put("success", true)
                .put("reason", "statistics are computed from watermarks and cursors on every read"));
    }
}
