package io.queen.ack;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Input;
import io.queen.api.JsonBytes;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.tracing.BrokerTracing;
import io.opentelemetry.api.trace.SpanKind;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code POST /api/v1/ack} and {@code /api/v1/ack/batch} (API spec 3.6, 3.7), applied by
 * {@link AckService#acknowledge}.
 */
@Path("/api/v1/ack")
public class AckResource {
    @Inject AckService service;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;
    @Inject BrokerTracing tracing;

    @Access(Access.Level.WRITE)
    @POST
    @RunOnVirtualThread
    public Response ack(byte[] body, @HeaderParam("traceparent") String traceparent) throws SQLException {
        return BrokerTracing.within(tracing.start("queen ack", SpanKind.SERVER, traceparent), () -> ack(body));
    }

    private Response ack(byte[] body) throws SQLException {
        JsonNode req = Bodies.requireObject(mapper, body);
        String txn = text(req, "transactionId");
        if (txn == null) {
            throw ApiException.badRequest("transactionId is required");
        }
        String pid = text(req, "partitionId");
        if (pid == null) {
            throw ApiException.badRequest("partitionId is required to ensure message uniqueness");
        }
        Input.text(txn, "transactionId");
        Input.token(pid, "partitionId");
        AckService.AckItem item = new AckService.AckItem(0, txn, pid, Input.token(optional(req, "status"), "status"),
                Input.token(optional(req, "leaseId"), "leaseId"), Input.text(optional(req, "error"), "error"));
        return results(service.acknowledge(callers.tenant(), List.of(item),
                AckBatchParser.namedGroup(AckBatchParser.value(req.get("consumerGroup")))));
    }

    @Access(Access.Level.WRITE)
    @POST
    @Path("/batch")
    @RunOnVirtualThread
    public Response batch(byte[] body, @HeaderParam("traceparent") String traceparent) throws SQLException {
        return BrokerTracing.within(tracing.start("queen ack", SpanKind.SERVER, traceparent), () -> batch(body));
    }

    private Response batch(byte[] body) throws SQLException {
        AckBatchParser.Batch batch = AckBatchParser.parse(mapper, body);
        if (batch.items().isEmpty()) {
            return results(List.of());
        }
        return results(service.acknowledge(callers.tenant(), batch.items(), batch.group()));
    }

    private static final byte[] INDEX_FIRST = JsonBytes.ascii("{\"index\":");
    private static final byte[] INDEX_NEXT = JsonBytes.ascii(",{\"index\":");
    private static final byte[] TXN = JsonBytes.ascii(",\"transactionId\":");
    private static final byte[] SUCCESS = JsonBytes.ascii(",\"success\":");
    private static final byte[] ERROR = JsonBytes.ascii(",\"error\":");
    private static final byte[] QUEUE_NAME = JsonBytes.ascii(",\"queueName\":");
    private static final byte[] PARTITION_NAME = JsonBytes.ascii(",\"partitionName\":");
    private static final byte[] LEASE_RELEASED = JsonBytes.ascii(",\"leaseReleased\":");
    private static final byte[] DLQ = JsonBytes.ascii(",\"dlq\":");

    /** The per-item answers, written as bytes (an ack batch answers one object per acknowledged message). */
    private static Response results(List<AckService.AckResult> results) {
        JsonBytes out = new JsonBytes(64 + results.size() * 200);
        JsonBytes.Memo queues = new JsonBytes.Memo();
        JsonBytes.Memo partitions = new JsonBytes.Memo();
        out.raw('[');
        for (int i = 0; i < results.size(); i++) {
            AckService.AckResult r = results.get(i);
            out.raw(i == 0 ? INDEX_FIRST : INDEX_NEXT).number(r.index())
                    .raw(TXN).string(r.transactionId())
                    .raw(SUCCESS).bool(r.success())
                    .raw(ERROR).string(r.error())
                    .raw(QUEUE_NAME).raw(queues.of(r.queueName()))
                    .raw(PARTITION_NAME).raw(partitions.of(r.partitionName()))
                    .raw(LEASE_RELEASED).bool(r.leaseReleased())
                    .raw(DLQ).bool(r.dlq()).raw('}');
        }
        return Response.ok(out.raw(']').toByteArray(), MediaType.APPLICATION_JSON_TYPE).build();
    }

    // The field rules are AckBatchParser's (one set for the tree-read routes and the streaming ack batch).

    static String group(JsonNode req) {
        return AckBatchParser.group(AckBatchParser.value(req.get("consumerGroup")));
    }

    /** A required string field: null when absent, null, empty or not a string. */
    static String text(JsonNode n, String field) {
        return AckBatchParser.text(AckBatchParser.value(n.get(field)));
    }

    /** An optional string field: JSON null counts as absent; a non-string is a 400 naming it. */
    static String optional(JsonNode n, String field) {
        return AckBatchParser.optional(AckBatchParser.value(n.get(field)), field);
    }
}
