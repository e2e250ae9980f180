package io.queen.traces;

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
public class TracesResource {
    static final int MAX_NAMES = 32;
    static final int MAX_NAME = 255;
    static final int MAX_EVENT = 64;
    static final int MAX_LIMIT = 1000;

    private final TraceStore store;
    private final MessageBrowser browser;
    private final ObjectMapper mapper;
    private final Callers callers;

    TracesResource(TraceStore store, MessageBrowser browser, ObjectMapper mapper, Callers callers) {
        this.store = store;
        this.browser = browser;
        this.mapper = mapper;
        this.callers = callers;
    }

    @POST
    @Access(Access.Level.WRITE)
    @RunOnVirtualThread
    public Response add(byte[] body) throws SQLException {
        UUID tenant = callers.tenant();
        JsonNode b = Bodies.requireObject(mapper, body);
        String txn = text(b, "transactionId");
        String pidText = text(b, "partitionId");
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
        String group = Input.name(orDefault(text(b, "consumerGroup"), "__QUEUE_MODE__"), "consumerGroup");
        String event = Input.check(orDefault(text(b, "eventType"), "info"), "eventType", MAX_EVENT);
        String worker = Input.token(text(b, "workerId"), "workerId");
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
    @RunOnVirtualThread
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
    @RunOnVirtualThread
    public Response byName(@PathParam("traceName") String name, @QueryParam("limit") String limit,
            @QueryParam("offset") String offset) throws SQLException {
        Input.check(name, "traceName", MAX_NAME);
        int l = Math.min(QueryParams.intParam(limit, "limit", 100, 1), MAX_LIMIT);
        int o = QueryParams.intParam(offset, "offset", 0, 0);
        TraceStore.Page<TraceStore.Trace> page = store.byName(callers.tenant(), name, l, o);
        Map<String, JsonNode> payloads = new HashMap<>();
        ObjectNode out = mapper.createObjectNode();
        ArrayNode arr = out.putArray("traces");
        for (TraceStore.Trace t : page.rows()) {
            ObjectNode n = arr.addObject();
            n.put("id", t.id().toString());
            n.put("transaction_id", t.transactionId());
            n.put("partition_id", t.partitionId().toString());
            common(n, t);
            n.put("queue_name", t.queue());
            n.put("partition_name", t.partition());
            String key = t.partitionId() + "/" + t.transactionId();
            JsonNode p = payloads.get(key);
            if (p == null && !payloads.containsKey(key)) {
                p = t.queue() == null ? null : browser.payloadOf(t.partitionId(), t.transactionId());
                payloads.put(key, p);
            }
            n.set("message_payload", p);
            names(n, t);
        }
        out.put("total", page.total());
        out.putObject("pagination").put("limit", l).put("offset", o);
        return Json.ok(out);
    }

    @GET
    @Path("/names")
    @Access(Access.Level.READ)
    @RunOnVirtualThread
    public Response names(@QueryParam("limit") String limit, @QueryParam("offset") String offset) throws SQLException {
        int l = Math.min(QueryParams.intParam(limit, "limit", 50, 1), MAX_LIMIT);
        int o = QueryParams.intParam(offset, "offset", 0, 0);
        TraceStore.Page<TraceStore.Name> page = store.names(callers.tenant(), l, o);
        ObjectNode out = mapper.createObjectNode();
        ArrayNode arr = out.putArray("trace_names");
        for (TraceStore.Name n : page.rows()) {
            ObjectNode x = arr.addObject();
            x.put("trace_name", n.name());
            x.put("trace_count", n.traces());
            x.put("message_count", n.messages());
            x.put("last_seen", Times.millis(n.lastSeen()));
        }
        out.put("total", page.total());
        out.putObject("pagination").put("limit", l).put("offset", o);
        return Json.ok(out);
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

    private static String text(JsonNode b, String field) {
        JsonNode n = b.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        return n.textValue();
    }

    private static String orDefault(String s, String def) {
        return s == null || s.isBlank() ? def : s;
    }
}
