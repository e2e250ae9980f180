package io.queen.browse;

import jakarta.inject.Inject;
import io.queen.api.Paging;
import static io.queen.api.QueryParams.blankToNull;
import static io.queen.api.QueryParams.intParam;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Ids;
import io.queen.api.Input;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.UUID;

/**
 * {@code GET /api/v1/messages} (browse, API spec 4.2) and {@code GET /api/v1/messages/:partitionId/:transactionId}
 * (one message, 4.3), and {@code GET /api/v1/messages/:partitionId/:transactionId/groups} (its status per consumer
 * group, {@link MessageGroups}). Non-destructive: no lease, no cursor move. Stateless.
 */
@Path("/api/v1/messages")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class MessagesResource {
    static final int DEFAULT_LIMIT = 200;
    static final int MAX_LIMIT = 1000;
    private static final Set<String> STATUSES = Set.of("pending", "processing", "completed", "dead_letter");

    @Inject MessageBrowser browser;
    @Inject MessageGroups groups;
    @Inject Callers callers;
    @Inject io.queen.queue.QueueStore queues;

    @Access(Access.Level.READ)
    @GET
    public Response list(@QueryParam("queue") String queue, @QueryParam("partition") String partition,
            @QueryParam("ns") String namespace, @QueryParam("task") String task, @QueryParam("status") String status,
            @QueryParam("from") String from, @QueryParam("to") String to, @QueryParam("limit") String limit,
            @QueryParam("offset") String offset, @QueryParam("transactionId") String transactionId)
            throws SQLException {
        if (transactionId != null) {
            return byTransaction(queue, transactionId);
        }
        String st = blankToNull(status);
        if (st != null && !STATUSES.contains(st)) {
            throw ApiException.badRequest("status must be one of pending, processing, completed, dead_letter");
        }
        Instant now = Instant.now();
        // "to" is inclusive of its whole minute (the dashboard sends minute-granular bounds)
        Instant t = to == null || to.isBlank() ? now
                : Times.parse(to, "to", now).truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1)).minusNanos(1);
        Instant f = Times.parse(from, "from", t.minus(Duration.ofHours(1)));
        if (f.isAfter(t)) {
            throw ApiException.badRequest("from must not be after to");
        }
        Paging paging = Paging.of(limit, offset, DEFAULT_LIMIT, MAX_LIMIT);
        UUID tenant = callers.tenant();
        ObjectNode out = browser.list(tenant, new MessageBrowser.Filter(blankToNull(queue), blankToNull(partition),
                blankToNull(namespace), blankToNull(task), st, f, t, paging.limit(), paging.offset()));
        return Json.ok(out);
    }

    /** Every partition of the queue holding the transaction id (one hash probe per partition), with payloads. */
    private Response byTransaction(String queue, String transactionId) throws SQLException {
        String txn = Input.token(transactionId, "transactionId");
        if (queue == null || queue.isBlank()) {
            throw ApiException.badRequest("queue is required with transactionId");
        }
        String name = io.queen.queue.Names.requireName(queue, "queue");
        UUID tenant = callers.tenant();
        ObjectNode out = Json.MAPPER.createObjectNode();
        com.fasterxml.jackson.databind.node.ArrayNode messages = out.putArray("messages");
        for (UUID pid : queues.partitionIds(tenant, name)) {
            ObjectNode m = browser.one(tenant, pid, txn);
            if (m != null) {
                messages.add(m);
            }
        }
        return Json.ok(out);
    }

    @Access(Access.Level.READ)
    @GET
    @Path("{partitionId}/{transactionId}")
    public Response one(@PathParam("partitionId") String pid, @PathParam("transactionId") String txn)
            throws SQLException {
        UUID partitionId = Ids.uuidOrNull(pid);
        if (partitionId == null) {
            throw ApiException.notFound("Message not found");
        }
        ObjectNode m = browser.one(callers.tenant(), partitionId, txn);
        if (m == null) {
            throw ApiException.notFound("Message not found");
        }
        return Json.ok(m);
    }

    @Access(Access.Level.READ)
    @GET
    @Path("{partitionId}/{transactionId}/groups")
    public Response groups(@PathParam("partitionId") String pid, @PathParam("transactionId") String txn)
            throws SQLException {
        String t = Input.token(txn, "transactionId");
        UUID partitionId = Ids.uuidOrNull(pid);
        ObjectNode out = partitionId == null ? null : groups.of(callers.tenant(), partitionId, t);
        if (out == null) {
            throw ApiException.notFound("Message not found");
        }
        return Json.ok(out);
    }
}
