package io.queen.dlq;

import jakarta.inject.Inject;
import io.queen.api.Paging;
import io.queen.api.Answer;
import static io.queen.api.QueryParams.intParam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Ids;
import io.queen.api.Json;
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
import java.util.UUID;

/**
 * {@code GET /api/v1/dlq} (browse, API spec 3.12), {@code POST /api/v1/dlq/:id/replay} (replay route B, API
 * spec 4.5), and the filtered bulk routes: {@code GET /api/v1/dlq/count}, {@code POST /api/v1/dlq/replay} and
 * {@code POST /api/v1/dlq/delete} ({@link DlqBulk}). Stateless.
 */
@Path("/api/v1/dlq")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class DlqResource {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    @Inject DlqStore store;
    @Inject PayloadCipher cipher;
    @Inject DlqReplay replay;
    @Inject DlqBulk bulk;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @Access(Access.Level.READ)
    @GET
    public Response browse(@QueryParam("queue") String queue, @QueryParam("consumerGroup") String group,
            @QueryParam("partition") String partition, @QueryParam("error") String error,
            @QueryParam("from") String from, @QueryParam("to") String to,
            @QueryParam("limit") String limitParam, @QueryParam("offset") String offsetParam) throws SQLException {
        Paging paging = Paging.of(limitParam, offsetParam, DEFAULT_LIMIT, MAX_LIMIT);
        DlqFilter f = DlqFilter.of(queue, group, partition, error, from, to);
        DlqStore.Page page = store.browse(callers.tenant(), f, paging.limit(), paging.offset());
        ObjectNode out = Answer.page("messages", page.rows(), r -> DlqJson.message(r, cipher), page.total(), paging);
        // the reference's answer also carries limit and offset at the top level
        out.put("limit", paging.limit());
        out.put("offset", paging.offset());
        return Json.ok(out);
    }

    @Access(Access.Level.READ)
    @GET
    @Path("count")
    public Response count(@QueryParam("queue") String queue, @QueryParam("consumerGroup") String group,
            @QueryParam("partition") String partition, @QueryParam("error") String error,
            @QueryParam("from") String from, @QueryParam("to") String to) throws SQLException {
        DlqFilter f = DlqFilter.of(queue, group, partition, error, from, to).ordered();
        DlqStore.Count c = store.count(callers.tenant(), f, null, null);
        ObjectNode out = mapper.createObjectNode();
        out.put("count", c.count());
        // the newest letter counted: a bulk action given it as `until` acts on exactly these letters
        if (c.newest() == null) {
            out.putNull("until");
        } else {
            out.put("until", c.newest().token());
        }
        return Json.ok(out);
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("replay")
    public Response replayMatching(byte[] body) throws SQLException {
        JsonNode req = Bodies.objectOrEmpty(mapper, body);
        DlqBulk.Batch batch = DlqBulk.Batch.of(req);
        String into = DlqJson.optionalName(req, "intoQueue");
        String intoPartition = DlqJson.optionalName(req, "intoPartition");
        if (into == null && intoPartition != null) {
            throw ApiException.badRequest("intoPartition needs intoQueue");
        }
        return Json.ok(DlqJson.bulk(bulk.replay(callers.tenant(), batch, into, intoPartition), true));
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("delete")
    public Response deleteMatching(byte[] body) throws SQLException {
        DlqBulk.Batch batch = DlqBulk.Batch.of(Bodies.objectOrEmpty(mapper, body));
        return Json.ok(DlqJson.bulk(bulk.delete(callers.tenant(), batch), false));
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("{id}/replay")
    public Response replay(@PathParam("id") String idParam, byte[] body) throws SQLException {
        JsonNode req = Bodies.objectOrEmpty(mapper, body);
        String queue = DlqJson.optionalName(req, "queue");
        String partition = DlqJson.optionalName(req, "partition");
        UUID id = Ids.uuidOrNull(idParam);
        if (id == null) {
            return Json.response(404, DlqJson.notFound("Dead letter not found"));
        }
        return DlqJson.replayAnswer(replay.replay(callers.tenant(), id, queue, partition), "Dead letter not found");
    }
}
