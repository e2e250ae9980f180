package io.queen.streams;

import jakarta.inject.Inject;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/**
 * {@code POST /streams/v1/cycle} (API spec 5.1): state ops + sink pushes + source ack in one transaction
 * ({@link CycleService}). A malformed request, an unknown query or a partition of another queue answers
 * 400 {@code {success:false, error}}; a cycle the database rolled back (lease expired or taken, ack refused)
 * answers 200 {@code {success:false, error}}. Thread-safe (stateless).
 */
@Path("/streams/v1/cycle")
@RunOnVirtualThread
public class CycleResource {
    @Inject CycleService cycles;
    @Inject ObjectMapper mapper;
    @Inject StreamsConfig limits;
    @Inject Callers callers;

    @POST
    @Access(Access.Level.WRITE)
    public Response cycle(byte[] body) throws Exception {
        UUID tenant = callers.tenant();
        CycleRequest r;
        try {
            r = CycleRequest.parse(StreamsBodies.object(mapper, body), limits, mapper);
        } catch (ApiException e) {
            return StreamsBodies.failure(e.status(), e.getMessage());
        }
        CycleService.Outcome o = cycles.run(tenant, r);
        if (!o.success()) {
            return StreamsBodies.failure(o.badRequest() ? 400 : 200, o.error());
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        out.put("query_id", r.queryId().toString());
        out.put("partition_id", r.partitionId().toString());
        out.put("state_ops_applied", o.stateOpsApplied());
        ArrayNode pushes = out.putArray("push_results");
        for (SinkWriter.Result p : o.pushes()) {
            ObjectNode n = pushes.addObject();
            n.put("index", p.index());
            n.put("status", p.duplicate() ? "duplicate" : "queued");
            n.put("transaction_id", p.item().transactionId());
            n.put("transactionId", p.item().transactionId());
            if (p.messageId() == null) {
                n.putNull("message_id");
            } else {
                n.put("message_id", p.messageId().toString());
            }
            n.put("partition_id", p.partitionId() == null ? null : p.partitionId().toString());
            n.put("queueName", p.item().queue());
            n.put("partition", p.item().partition());
            if (!p.duplicate()) {
                n.put("offset", p.offset());
            }
        }
        if (o.ack() == null) {
            out.putNull("ack_result");
        } else {
            ObjectNode a = out.putObject("ack_result");
            a.put("success", true);
            a.put("lease_released", o.ack().leaseReleased());
            a.put("dlq", o.ack().dlq());
            a.put("count", o.ack().count());
        }
        return Json.ok(out);
    }
}
