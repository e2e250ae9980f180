package io.queen.dlq;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Bodies;
import io.queen.api.Ids;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Dead letters addressed by (partitionId, transactionId): {@code DELETE /api/v1/messages/:p/:t} (API spec 4.4:
 * deletes every consumer group's dead letter there; a live message is immutable, so none -> 404) and
 * {@code POST /api/v1/messages/:p/:t/retry} (replay route A: the newest dead letter at that address). Stateless.
 */
@Path("/api/v1/messages")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class DlqMessageResource {
    private static final String NOT_FOUND = "Message not found in the dead letter queue";

    @Inject DlqStore store;
    @Inject DlqReplay replay;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @Access(Access.Level.WRITE)
    @DELETE
    @Path("{partitionId}/{transactionId}")
    public Response delete(@PathParam("partitionId") String pid, @PathParam("transactionId") String txn)
            throws SQLException {
        UUID partitionId = Ids.uuidOrNull(pid);
        int n = partitionId == null ? 0 : store.delete(callers.tenant(), partitionId, txn);
        ObjectNode out = mapper.createObjectNode();
        out.put("success", n > 0);
        if (n > 0) {
            out.put("deleted", n);
        } else {
            out.put("error", "Message not found");
        }
        out.put("partitionId", pid);
        out.put("transactionId", txn);
        out.put("message", n > 0 ? "Message deleted successfully" : "Message not found");
        return Json.response(n > 0 ? 200 : 404, out);
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("{partitionId}/{transactionId}/retry")
    public Response retry(@PathParam("partitionId") String pid, @PathParam("transactionId") String txn, byte[] body)
            throws SQLException {
        Bodies.objectOrEmpty(mapper, body); // body ignored, but broken JSON is still a 400
        UUID partitionId = Ids.uuidOrNull(pid);
        UUID id = partitionId == null ? null : store.find(callers.tenant(), partitionId, txn);
        if (id == null) {
            return Json.response(404, DlqJson.notFound(NOT_FOUND));
        }
        return DlqJson.replayAnswer(replay.replay(callers.tenant(), id, null, null), NOT_FOUND);
    }
}
