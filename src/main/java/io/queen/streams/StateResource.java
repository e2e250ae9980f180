package io.queen.streams;

import jakarta.inject.Inject;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Json;
import io.queen.api.Times;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@code POST /streams/v1/state/get} (API spec 5.1): a (query, partition)'s state rows, filtered in SQL by
 * {@code keys} (missing keys are absent from the answer), {@code key_prefix} (UTF-8 byte prefix) and
 * {@code ripe_at_or_before} ({@code value.windowEnd} a number at or below it), combined with AND; no filter = all
 * rows. The SDKs' idle flush depends on the last two: every row it reads is a window it closes. A read: takes no
 * lock. Thread-safe (stateless).
 */
@Path("/streams/v1/state/get")
@RunOnVirtualThread
public class StateResource {
    /** Far beyond any epoch-ms; bounds what reaches PostgreSQL's numeric. */
    private static final BigDecimal RIPE_LIMIT = new BigDecimal("1e30");
    @Inject StreamsStore store;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;
    @Inject StreamsConfig limits;

    @POST
    @Access(Access.Level.READ)
    public Response get(byte[] body) throws Exception {
        UUID tenant = callers.tenant();
        UUID query;
        UUID pid;
        List<String> keys = new ArrayList<>();
        StreamsStore.StateFilter filter;
        try {
            JsonNode req = StreamsBodies.object(mapper, body);
            query = uuid(StreamsBodies.required(req, "query_id"), "query_id");
            pid = uuid(StreamsBodies.required(req, "partition_id"), "partition_id");
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
            filter = new StreamsStore.StateFilter(keys, keyPrefix(req), ripe(req));
            if (!store.queryExists(tenant, query)) {
                throw ApiException.badRequest("unknown query_id " + query);
            }
        } catch (ApiException e) {
            return StreamsBodies.failure(e.status(), e.getMessage());
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        ArrayNode rows = out.putArray("rows");
        for (StreamsStore.Row r : store.state(tenant, query, pid, filter)) {
            ObjectNode row = rows.addObject();
            row.put("key", r.key());
            row.set("value", mapper.readTree(r.valueJson()));
            row.put("updated_at", Times.millis(r.updatedAt()));
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
}
