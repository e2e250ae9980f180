package io.queen.live;

import jakarta.inject.Inject;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/v1/live}: push/pop/ack rates over the last few seconds per queue and per broker, summed over the
 * brokers that published recently ({@link LiveBoard}); the console polls it. Stateless.
 */
@Path("/api/v1/live")
@Access(Access.Level.READ)
@Tag(name = "status")
public class LiveResource {
    @Inject LiveBoard board;
    @Inject Callers callers;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @Operation(summary = "Live push/pop/ack rates per queue and per broker (a few seconds old at most)")
    @APIResponse(responseCode = "200", description = "{at, publishMs, windowMs, totals:{push, pop, ack, pushed, "
            + "popped, acked}, queues:[{queue, push, pop, ack, pushed, popped, acked}], brokers:[{hostname, workerId, "
            + "port, startedAt, ageMs, push, pop, ack}]}")
    public Response live() throws SQLException {
        return Json.ok(board.live(callers.tenant()));
    }
}
