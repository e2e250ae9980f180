package io.queen.dlq;

import jakarta.inject.Inject;
import io.queen.api.Paging;
import io.queen.api.Answer;
import static io.queen.api.QueryParams.blankToNull;
import static io.queen.api.QueryParams.intParam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Ids;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.crypto.PayloadCipher;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/v1/dlq} (browse, API spec 3.12) and {@code POST /api/v1/dlq/:id/replay} (replay route B,
 * API spec 4.5). Stateless.
 */
@Path("/api/v1/dlq")
@Tag(name = "dlq")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class DlqResource {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    @Inject DlqStore store;
    @Inject PayloadCipher cipher;
    @Inject DlqReplay replay;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @Access(Access.Level.READ)
    @GET
    @Operation(summary = "Browse dead letters, newest failure first",
            description = "Query: queue, consumerGroup, partition, from, to, limit (default 100, max 1000), offset.")
    @APIResponse(responseCode = "200", description = "{messages:[{id, messageId, transactionId, partitionId, "
            + "queue, partition, consumerGroup, errorMessage, retryCount, data, createdAt, failedAt, ...}], "
            + "total, limit, offset, pagination}")
    @APIResponse(responseCode = "400", description = "a malformed query value")
    public Response browse(@QueryParam("queue") String queue, @QueryParam("consumerGroup") String group,
            @QueryParam("partition") String partition, @QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("limit") String limitParam, @QueryParam("offset") String offsetParam) throws SQLException {
        Paging paging = Paging.of(limitParam, offsetParam, DEFAULT_LIMIT, MAX_LIMIT);
        Instant f = Times.parse(from, "from", null);
        Instant t = Times.parse(to, "to", null);
        UUID tenant = callers.tenant();
        DlqStore.Page page = store.browse(tenant, blankToNull(queue), blankToNull(group), blankToNull(partition), f, t,
                paging.limit(), paging.offset());
        ObjectNode out = Answer.page("messages", page.rows(), r -> DlqJson.message(r, cipher), page.total(), paging);
        // the reference's answer also carries limit and offset at the top level
        out.put("limit", paging.limit());
        out.put("offset", paging.offset());
        return Json.ok(out);
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("{id}/replay")
    @RequestBody(required = false, description = "{queue?, partition?} destination (default: the source "
            + "partition); empty body allowed",
            content = @Content(mediaType = "application/json", schema = @Schema(type = SchemaType.OBJECT)))
    @Operation(summary = "Replay one dead letter by its row id")
    @APIResponse(responseCode = "200", description = "{result: moved|duplicate, ...}")
    @APIResponse(responseCode = "404", description = "no such dead letter")
    public Response replay(@PathParam("id") String idParam, byte[] body) throws SQLException {
        JsonNode req = Bodies.objectOrEmpty(mapper, body);
        String queue = DlqJson.optionalName(req, "queue");
        String partition = DlqJson.optionalName(req, "partition");
        UUID id = Ids.uuidOrNull(idParam);
        if (id == null) {
            return Json.response(404, DlqJson.notFound("Dead letter not found"));
        }
        DlqReplay.Result r = replay.replay(callers.tenant(), id, queue, partition);
        if (r.verdict() == DlqReplay.Verdict.GONE) {
            return Json.response(404, DlqJson.notFound("Dead letter not found"));
        }
        return Json.ok(DlqJson.replayed(r));
    }
}
