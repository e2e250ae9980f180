package io.queen.groups;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.pop.PopService;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Consumer-group administration the clients use (API spec 3.10, 3.11, 4.12): delete a group (everywhere or on
 * one queue), move its recorded subscription start, seek its cursors. Every cursor move also forgets this
 * broker's wildcard scan floors for the group, so a backward move is seen at once (other brokers re-scan within
 * 30 s).
 */
@Path("/api/v1/consumer-groups/{group}")
@RunOnVirtualThread
public class ConsumerGroupResource {
    @Inject ConsumerGroupStore store;
    @Inject PopService pop;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @Access(Access.Level.ADMIN)
    @DELETE
    public Response delete(@PathParam("group") String group, @QueryParam("deleteMetadata") String deleteMetadata)
            throws SQLException {
        return deleted(group, null, deleteMetadata);
    }

    @Access(Access.Level.ADMIN)
    @DELETE
    @Path("/queues/{queue}")
    public Response deleteForQueue(@PathParam("group") String group, @PathParam("queue") String queue,
            @QueryParam("deleteMetadata") String deleteMetadata) throws SQLException {
        return deleted(group, queue, deleteMetadata);
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("/subscription")
    public Response subscription(@PathParam("group") String group, byte[] body) throws SQLException {
        JsonNode req = Bodies.requireObject(mapper, body);
        JsonNode ts = req.get("subscriptionTimestamp");
        if (ts == null || ts.isNull()) {
            throw ApiException.badRequest("Missing subscriptionTimestamp in request body");
        }
        Instant at = timestamp(ts, "subscriptionTimestamp");
        int rows = store.moveSubscription(callers.tenant(), group, at);
        pop.cursorsMoved(group);
        ObjectNode out = success(group, null);
        out.put("newTimestamp", ts.textValue());
        out.put("rowsUpdated", rows);
        return Json.ok(out);
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("/queues/{queue}/seek")
    public Response seek(@PathParam("group") String group, @PathParam("queue") String queue, byte[] body)
            throws SQLException {
        JsonNode req = Bodies.objectOrEmpty(mapper, body);
        boolean toEnd = req.path("toEnd").asBoolean(false);
        JsonNode ts = req.get("timestamp");
        boolean hasTs = ts != null && !ts.isNull();
        if (toEnd == hasTs) {
            throw ApiException.badRequest("Must specify either 'toEnd': true or 'timestamp'");
        }
        Instant at = hasTs ? timestamp(ts, "timestamp") : null;
        if (!store.queueExists(callers.tenant(), queue)) {
            return notFound("Queue not found");
        }
        List<ConsumerGroupStore.Moved> moved = store.seek(callers.tenant(), group, queue, null, at);
        pop.cursorsMoved(group);
        ObjectNode out = success(group, queue);
        out.put("seekToEnd", toEnd);
        if (hasTs) {
            out.put("targetTimestamp", ts.textValue());
        } else {
            out.putNull("targetTimestamp");
        }
        out.put("partitionsUpdated", moved.size());
        return Json.ok(out);
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("/queues/{queue}/partitions/{partition}/seek")
    public Response seekPartition(@PathParam("group") String group, @PathParam("queue") String queue,
            @PathParam("partition") String partition, byte[] body) throws SQLException {
        JsonNode req = Bodies.objectOrEmpty(mapper, body);
        JsonNode offset = req.get("offset");
        JsonNode ts = req.get("timestamp");
        boolean hasOffset = offset != null && !offset.isNull();
        boolean hasTs = ts != null && !ts.isNull();
        if (hasOffset && hasTs) {
            throw ApiException.badRequest("offset and timestamp: give at most one");
        }
        if (hasOffset && (!offset.canConvertToLong() || !offset.isIntegralNumber() || offset.asLong() < 0)) {
            throw ApiException.badRequest("offset must be a non-negative integer");
        }
        Instant at = hasTs ? timestamp(ts, "timestamp") : null;
        if (!store.partitionExists(callers.tenant(), queue, partition)) {
            return notFound("Partition not found");
        }
        List<ConsumerGroupStore.Moved> moved = hasOffset
                ? store.seekToOffset(callers.tenant(), group, queue, partition, offset.asLong())
                : store.seek(callers.tenant(), group, queue, partition, at);
        pop.cursorsMoved(group);
        ObjectNode out = success(group, queue);
        out.put("partitionName", partition);
        out.put("updated", !moved.isEmpty());
        if (moved.isEmpty()) {
            out.putNull("cursorMovedTo");
        } else {
            out.put("cursorMovedTo", moved.get(0).committed());
        }
        return Json.ok(out);
    }

    /** Deletes the group's cursors on {@code queue} (null = every queue) and answers what went. */
    private Response deleted(String group, String queue, String deleteMetadata) throws SQLException {
        ConsumerGroupStore.Deleted d = store.delete(callers.tenant(), group, queue, metadataFlag(deleteMetadata));
        pop.cursorsMoved(group);
        ObjectNode out = success(group, queue);
        out.put("deletedPartitions", d.partitions());
        out.put("metadataDeleted", d.metadata() > 0);
        return Json.ok(out);
    }

    /** The head of every answer here: {@code {success:true, consumerGroup, queueName}} (queueName given a queue). */
    private ObjectNode success(String group, String queue) {
        ObjectNode out = mapper.createObjectNode().put("success", true).put("consumerGroup", group);
        return queue == null ? out : out.put("queueName", queue);
    }

    /** The seeks' answer for a name the caller's tenant does not have (API spec 4.12's shape). */
    private Response notFound(String error) {
        return Json.response(404, mapper.createObjectNode().put("success", false).put("error", error));
    }

    private static boolean metadataFlag(String v) {
        return v == null || v.isBlank() || v.equalsIgnoreCase("true") || v.equals("1");
    }

    private static Instant timestamp(JsonNode v, String field) {
        if (!v.isTextual() || v.textValue().isBlank()) {
            throw ApiException.badRequest(field + " must be an ISO-8601 timestamp string");
        }
        return Times.parse(v.textValue(), field, null);
    }
}
