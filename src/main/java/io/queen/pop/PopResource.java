package io.queen.pop;

import io.queen.config.QueenConfig;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.vertx.core.http.HttpServerResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The three pop routes (API spec 3.4, 3.5). "Nothing" is always 204 with no body, including for an unknown
 * queue or partition: a consume loop dies on any 4xx.
 */
@Path("/api/v1/pop")
@Tag(name = "core")
public class PopResource {
    private final PopService service;
    private final QueenConfig config;

    PopResource(PopService service, QueenConfig config) {
        this.service = service;
        this.config = config;
    }

    @GET
    @Path("/queue/{queue}/partition/{partition}")
    @RunOnVirtualThread
    @Operation(summary = "Lease a batch from one partition (long poll with wait=true)",
            description = "Query: batch, wait, timeout (ms), consumerGroup, autoAck, subscriptionMode, "
                    + "subscriptionFrom.")
    @APIResponse(responseCode = "200", description = "{messages:[{id, transactionId, partitionId, leaseId, "
            + "data, traceId, producerSub, createdAt, ...}], leaseId, partitionId, ...}")
    @APIResponse(responseCode = "204", description = "nothing to deliver (also for an unknown queue)")
    @APIResponse(responseCode = "400", description = "a malformed query value")
    public Response partition(@PathParam("queue") String queue, @PathParam("partition") String partition,
            @QueryParam("batch") String batch, @QueryParam("wait") String wait, @QueryParam("timeout") String timeout,
            @QueryParam("consumerGroup") String group, @QueryParam("autoAck") String autoAck,
            @QueryParam("subscriptionMode") String subMode, @QueryParam("subscriptionFrom") String subFrom,
            @Context HttpServerResponse response) {
        return answer(PopRequest.parse(config, queue, partition, null, null, batch, wait, timeout, group, autoAck,
                subMode, subFrom, null), response);
    }

    @GET
    @Path("/queue/{queue}")
    @RunOnVirtualThread
    @Operation(summary = "Lease a batch from any partition of a queue (long poll with wait=true)",
            description = "Query: batch, wait, timeout (ms), consumerGroup, autoAck, subscriptionMode, "
                    + "subscriptionFrom, partitions.")
    @APIResponse(responseCode = "200", description = "{messages:[...], leaseId, ...}")
    @APIResponse(responseCode = "204", description = "nothing to deliver (also for an unknown queue)")
    @APIResponse(responseCode = "400", description = "a malformed query value")
    public Response queue(@PathParam("queue") String queue, @QueryParam("batch") String batch,
            @QueryParam("wait") String wait, @QueryParam("timeout") String timeout,
            @QueryParam("consumerGroup") String group, @QueryParam("autoAck") String autoAck,
            @QueryParam("subscriptionMode") String subMode, @QueryParam("subscriptionFrom") String subFrom,
            @QueryParam("partitions") String partitions, @Context HttpServerResponse response) {
        return answer(PopRequest.parse(config, queue, null, null, null, batch, wait, timeout, group, autoAck, subMode,
                subFrom, partitions), response);
    }

    @GET
    @RunOnVirtualThread
    @Operation(summary = "Lease a batch from the queues of a namespace and/or task",
            description = "Query: namespace and/or task (one required), then as the queue pop.")
    @APIResponse(responseCode = "200", description = "{messages:[...], leaseId, ...}")
    @APIResponse(responseCode = "204", description = "nothing to deliver")
    @APIResponse(responseCode = "400", description = "neither namespace nor task, or a malformed query value")
    public Response discover(@QueryParam("namespace") String namespace, @QueryParam("task") String task,
            @QueryParam("batch") String batch, @QueryParam("wait") String wait, @QueryParam("timeout") String timeout,
            @QueryParam("consumerGroup") String group, @QueryParam("autoAck") String autoAck,
            @QueryParam("subscriptionMode") String subMode, @QueryParam("subscriptionFrom") String subFrom,
            @QueryParam("partitions") String partitions, @Context HttpServerResponse response) {
        PopRequest.requireNamespaceOrTask(namespace, task);
        return answer(PopRequest.parse(config, null, null, namespace, task, batch, wait, timeout, group, autoAck,
                subMode, subFrom, partitions), response);
    }

    private Response answer(PopRequest r, HttpServerResponse response) {
        PopService.Result res = service.pop(r, response::closed);
        if (res == null) {
            return Response.noContent().build();
        }
        return Response.ok(res.body(), MediaType.APPLICATION_JSON_TYPE).build();
    }
}
