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

/**
 * {@code GET /api/v1/live}: push/pop/ack rates over the last few seconds per queue and per broker, summed over the
 * brokers that published recently ({@link LiveBoard}); the console polls it. Stateless.
 */
@Path("/api/v1/live")
@Access(Access.Level.READ)
public class LiveResource {
    @Inject LiveBoard board;
    @Inject Callers callers;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response live() throws SQLException {
        return Json.ok(board.live(callers.tenant()));
    }
}
