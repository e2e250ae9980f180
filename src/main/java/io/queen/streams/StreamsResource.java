package io.queen.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Input;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.queue.Names;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The streams routes (API spec 5.1). Each takes a JSON object and answers a refused request with
 * {@code {success:false, error}} ({@link StreamsBodies}). Thread-safe (stateless).
 * <ul>
 * <li>{@code POST /streams/v1/queries} registers a stream query or checks a redeploy against its registration. A
 * changed {@code config_hash} (or source queue) without {@code reset:true} is a 409 and changes nothing;
 * {@code reset:true} takes the new shape and wipes the query's state. Every string passes the input rules of
 * {@code /push} (queue names as queue names, {@link Input} for the rest) before any SQL.
 * <li>{@code POST /streams/v1/cycle}: state ops + sink pushes + source ack in one transaction ({@link CycleService}).
 * A malformed request, an unknown query or a partition of another queue answers 400; a cycle the database rolled
 * back (lease expired or taken, ack refused) answers 200 {@code {success:false, error}}.
 * <li>{@code POST /streams/v1/state/get}: a (query, partition)'s state rows, filtered in SQL by {@code keys}
 * (missing keys are absent from the answer), {@code key_prefix} (UTF-8 byte prefix) and {@code ripe_at_or_before}
 * ({@code value.windowEnd} a number at or below it), combined with AND; no filter = all rows. The SDKs' idle flush
 * depends on the last two: every row it reads is a window it closes. A read: takes no lock.
 * </ul>
 */
@Path("/streams/v1")
@RunOnVirtualThread
public class StreamsResource {
    /** Far beyond any epoch-ms; bounds what reaches PostgreSQL's numeric. */
    private static final BigDecimal RIPE_LIMIT = new BigDecimal("1e30");

    @Inject StreamsStore store;
    @Inject CycleService cycles;
    @Inject StreamsConfig limits;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @POST
    @Path("queries")
    @Access(Access.Level.WRITE)
    public Response register(byte[] body) throws Exception {
        return serve(body, (tenant, req) -> QueryRegistration.of(req), this::registered);
    }

    /** A {@code /queries} body: every string checked, an empty sink_queue absent. */
    private record QueryRegistration(String name, String source, String sink, String hash, boolean reset) {
        static QueryRegistration of(JsonNode req) {
            String name = Input.name(StreamsBodies.required(req, "name"), "name");
            String source = Names.requireName(StreamsBodies.required(req, "source_queue"), "source_queue");
            String hash = Input.token(StreamsBodies.required(req, "config_hash"), "config_hash");
            String sink = Bodies.optionalString(req, "sink_queue");
            if (sink != null && sink.isEmpty()) {
                sink = null;
            }
            if (sink != null) {
                Names.requireName(sink, "sink_queue");
            }
            JsonNode r = req.get("reset");
            if (r != null && !r.isNull() && !r.isBoolean()) {
                throw ApiException.badRequest("reset must be a boolean");
            }
            return new QueryRegistration(name, source, sink, hash, r != null && r.booleanValue());
        }
    }

    private Response registered(UUID tenant, QueryRegistration q) throws SQLException {
        StreamsStore.Registration reg = store.register(tenant, q.name(), q.source(), q.sink(), q.hash(), q.reset());
        if (reg.conflict() != null) {
            return StreamsBodies.failure(409, reg.conflict());
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        out.put("query_id", reg.queryId().toString());
        out.put("name", q.name());
        out.put("config_hash", q.hash());
        out.put("fresh", reg.fresh());
        out.put("reset", reg.reset());
        return Json.ok(out);
    }

    @POST
    @Path("cycle")
    @Access(Access.Level.WRITE)
    public Response cycle(byte[] body) throws Exception {
        return serve(body, (tenant, req) -> CycleRequest.parse(req, limits, mapper), this::cycled);
    }

    private Response cycled(UUID tenant, CycleRequest r) throws Exception {
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

    @POST
    @Path("state/get")
    @Access(Access.Level.READ)
    public Response state(byte[] body) throws Exception {
        return serve(body, this::stateRead, this::stateRows);
    }

    /** A {@code /state/get} body: the query (which must exist), the partition and the filter. */
    private record StateRead(UUID query, UUID partition, StreamsStore.StateFilter filter) {
    }

    private StateRead stateRead(UUID tenant, JsonNode req) throws SQLException {
        UUID query = uuid(StreamsBodies.required(req, "query_id"), "query_id");
        UUID pid = uuid(StreamsBodies.required(req, "partition_id"), "partition_id");
        List<String> keys = new ArrayList<>();
        JsonNode k = req.get("keys");
        if (k != null && !k.isNull()) {
            if (!k.isArray()) {
                throw ApiException.badRequest("keys must be an array of strings");
            }
            for (JsonNode key : k) {
                if (!key.isTextual()) {
                    throw ApiException.badRequest("keys must be an array of strings");
                }
                keys.add(CycleRequest.stateKey(key.textValue(), "keys[" + keys.size() + "]", limits));
            }
        }
        StreamsStore.StateFilter filter = new StreamsStore.StateFilter(keys, keyPrefix(req), ripe(req));
        if (!store.queryExists(tenant, query)) {
            throw ApiException.badRequest("unknown query_id " + query);
        }
        return new StateRead(query, pid, filter);
    }

    private Response stateRows(UUID tenant, StateRead r) throws Exception {
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        ArrayNode rows = out.putArray("rows");
        for (StreamsStore.Row row : store.state(tenant, r.query(), r.partition(), r.filter())) {
            ObjectNode o = rows.addObject();
            o.put("key", row.key());
            o.set("value", mapper.readTree(row.valueJson()));
            o.put("updated_at", Times.millis(row.updatedAt()));
        }
        return Json.ok(out);
    }

    /** {@code key_prefix}: a string with a state key's rules; absent, null or empty = no filter. */
    private String keyPrefix(JsonNode req) {
        String v = Bodies.optionalString(req, "key_prefix");
        return v == null || v.isEmpty() ? null : CycleRequest.stateKey(v, "key_prefix", limits);
    }

    /**
     * {@code ripe_at_or_before}: a JSON number (epoch ms; a fraction is compared as such); absent or null = no
     * filter. Anything else is a 400 naming it: a flush that silently read every window would close open ones.
     */
    private static BigDecimal ripe(JsonNode req) {
        JsonNode v = req.get("ripe_at_or_before");
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber()) {
            throw ApiException.badRequest("ripe_at_or_before must be a number (epoch milliseconds)");
        }
        try {
            BigDecimal d = v.decimalValue();
            if (d.abs().compareTo(RIPE_LIMIT) <= 0) {
                return d;
            }
        } catch (NumberFormatException e) {
            // an infinite double: answered below
        }
        throw ApiException.badRequest("ripe_at_or_before must be a number between -1e30 and 1e30");
    }

    private static UUID uuid(String s, String field) {
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(field + " must be a UUID");
        }
    }

    /** Reads a route's body; an {@link ApiException} it throws is the request's refusal. */
    @FunctionalInterface
    private interface Parse<T> {
        T parse(UUID tenant, JsonNode body) throws Exception;
    }

    /** Does what a route does with its parsed body. */
    @FunctionalInterface
    private interface Serve<T> {
        Response serve(UUID tenant, T request) throws Exception;
    }

    /**
     * Every streams route: the caller's tenant, the body as a JSON object read by {@code parse} (its refusal answers
     * {@code {success:false, error}} with its status), then {@code serve}.
     */
    private <T> Response serve(byte[] body, Parse<T> parse, Serve<T> serve) throws Exception {
        UUID tenant = callers.tenant();
        T request;
        try {
            request = parse.parse(tenant, StreamsBodies.object(mapper, body));
        } catch (ApiException e) {
            return StreamsBodies.failure(e.status(), e.getMessage());
        }
        return serve.serve(tenant, request);
    }
}
