package io.queen.traces;

import jakarta.inject.Inject;
import io.queen.api.Paging;
import io.queen.api.Answer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.browse.MessageBrowser;
import io.queen.api.ApiException;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.api.Bodies;
import io.queen.api.Ids;
import io.queen.api.Input;
import io.queen.api.Json;
import io.queen.api.QueryParams;
import io.queen.api.Times;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Message traces (API spec 4.6): {@code POST /api/v1/traces} records what a consumer did with a message
 * ({@code message.trace(...)} in the official clients), the three GETs read them back by message, by name, and as
 * a names summary. Traces live in their own table and follow the retention of their queue (docs/http-api.md, "Traces").
 * Limits: at most {@value #MAX_NAMES} names of at most {@value #MAX_NAME} characters each, {@code eventType} at
 * most {@value #MAX_EVENT} characters, pages of at most {@value #MAX_LIMIT}. Stateless.
 */
@Path("/api/v1/traces")
@RunOnVirtualThread
public class TracesResource {
    static final int MAX_NAMES = 32;
    static final int MAX_NAME = 255;
    static final int MAX_EVENT = 64;
    static final int MAX_LIMIT = 1000;

    @Inject TraceStore store;
    @Inject MessageBrowser browser;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @POST
    @Access(Access.Level.WRITE)
    public Response add(byte[] body) throws SQLException {
        UUID tenant = callers.tenant();
        JsonNode b = Bodies.requireObject(mapper, body);
        String txn = Bodies.optionalString(b, "transactionId");
        String pidText = Bodies.optionalString(b, "partitionId");
        if (txn == null || txn.isEmpty() || pidText == null || pidText.isEmpty()) {
            throw ApiException.badRequest("transactionId and partitionId are required");
        }
        Input.text(txn, "transactionId");
        Input.token(pidText, "partitionId");
        JsonNode data = b.get("data");
        if (data == null || data.isNull()) {
            throw ApiException.badRequest("data is required");
        }
        if (!data.isObject()) {
            throw ApiException.badRequest("data must be an object");
        }
        String dataJson = data.toString();
        if (dataJson.contains("\\u0000")) {
            // stored as jsonb, which cannot hold U+0000
            throw ApiException.badRequest("data must not contain the character U+0000");
        }
        String group = Input.name(orDefault(Bodies.optionalString(b, "consumerGroup"), "__QUEUE_MODE__"), "consumerGroup");
        String event = Input.check(orDefault(Bodies.optionalString(b, "eventType"), "info"), "eventType", MAX_EVENT);
        String worker = Input.token(Bodies.optionalString(b, "workerId"), "workerId");
        List<String> names = names(b.get("traceNames"));
        UUID pid = Ids.uuidOrNull(pidText);
        if (pid == null || !browser.exists(tenant, pid, txn)) {
            ObjectNode nf = mapper.createObjectNode();
            nf.put("success", false);
            nf.put("error", "Message not found");
            return Json.response(404, nf);
        }
        UUID id = store.add(tenant, pid, txn, group, event, dataJson, worker, names);
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        out.put("traceId", id.toString());
        return Json.response(201, out);
    }

    @GET
    @Path("/{partitionId}/{transactionId}")
    @Access(Access.Level.READ)
    public Response ofMessage(@PathParam("partitionId") String partitionId,
            @PathParam("transactionId") String transactionId) throws SQLException {
        UUID pid = Ids.uuidOrNull(partitionId);
        if (pid == null) {
            throw ApiException.badRequest("partitionId must be a UUID");
        }
        Input.text(transactionId, "transactionId");
        ObjectNode out = mapper.createObjectNode();
        ArrayNode arr = out.putArray("traces");
        for (TraceStore.Trace t : store.ofMessage(callers.tenant(), pid, transactionId)) {
            ObjectNode o = common(arr.addObject(), t);
            names(o, t);
        }
        return Json.ok(out);
    }

    @GET
    @Path("/by-name/{traceName}")
    @Access(Access.Level.READ)
    public Response byName(@PathParam("traceName") String name, @QueryParam("limit") String limit,
            @QueryParam("offset") String offset) throws SQLException {
        Input.check(name, "traceName", MAX_NAME);
        Paging paging = Paging.of(limit, offset, 100, MAX_LIMIT);
        TraceStore.Page<TraceStore.Trace> page = store.byName(callers.tenant(), name, paging.limit(), paging.offset());
        // each message's payload once, however many of its traces the page holds
        Map<String, JsonNode> payloads = new HashMap<>();
        for (TraceStore.Trace t : page.rows()) {
            String key = t.partitionId() + "/" + t.transactionId();
            if (!payloads.containsKey(key)) {
                payloads.put(key, t.queue() == null ? null : browser.payloadOf(t.partitionId(), t.transactionId()));
            }
        }
        return Json.ok(Answer.page("traces", page.rows(), t -> {
            ObjectNode n = Answer.object();
            n.put("id", t.id().toString());
            n.put("transaction_id", t.transactionId());
            n.put("partition_id", t.partitionId().toString());
            common(n, t);
            n.put("queue_name", t.queue());
            n.put("partition_name", t.partition());
            n.set("message_payload", payloads.get(t.partitionId() + "/" + t.transactionId()));
            names(n, t);
            return n;
        }, page.total(), paging));
    }

    @GET
    @Path("/names")
    @Access(Access.Level.READ)
    public Response names(@QueryParam("limit") String limit, @QueryParam("offset") String offset) throws SQLException {
        Paging paging = Paging.of(limit, offset, 50, MAX_LIMIT);
        TraceStore.Page<TraceStore.Name> page = store.names(callers.tenant(), paging.limit(), paging.offset());
        return Json.ok(Answer.page("trace_names", page.rows(), n -> Answer.object().put("trace_name", n.name())
                .put("trace_count", n.traces()).put("message_count", n.messages())
                .put("last_seen", Times.millis(n.lastSeen())), page.total(), paging));
    }

    private ObjectNode common(ObjectNode o, TraceStore.Trace t) {
        if (!o.has("id")) {
            o.put("id", t.id().toString());
        }
        o.put("event_type", t.eventType());
        o.set("data", json(t.dataJson()));
        o.put("consumer_group", t.consumerGroup());
        o.put("worker_id", t.workerId());
        o.put("created_at", Times.millis(t.createdAt()));
        return o;
    }

    private JsonNode json(String s) {
        try {
            return mapper.readTree(s);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("stored trace data is not JSON", e);
        }
    }

    private static void names(ObjectNode o, TraceStore.Trace t) {
        ArrayNode a = o.putArray("trace_names");
        t.names().forEach(a::add);
    }

    /** traceNames: an array of strings, one string, or null/absent. */
    private static List<String> names(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n == null || n.isNull()) {
            return out;
        }
        if (n.isTextual()) {
            out.add(checkedName(n.textValue()));
            return out;
        }
        if (!n.isArray()) {
            throw ApiException.badRequest("traceNames must be an array of strings, a string or null");
        }
        if (n.size() > MAX_NAMES) {
            throw ApiException.badRequest("traceNames has more than " + MAX_NAMES + " names");
        }
        for (JsonNode x : n) {
            if (!x.isTextual()) {
                throw ApiException.badRequest("traceNames must be an array of strings, a string or null");
            }
            out.add(checkedName(x.textValue()));
        }
        return out;
    }

    private static String checkedName(String s) {
        return Input.check(s, "traceNames", MAX_NAME);
    }

    private static String orDefault(String s, String def) {
        return s == null || s.isBlank() ? def : s;
    }
}
