package io.queen.streams;

import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.config.QueenConfig;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@code POST /streams/v1/state/get} (API spec 5.1): a (query, partition)'s state rows, all of them or the named
 * keys (missing keys are absent from the answer). A read: takes no lock. Thread-safe (stateless).
 */
@Path("/streams/v1/state/get")
public class StateResource {
    private final StreamsStore store;
    private final ObjectMapper mapper;
    private final Callers callers;
    private final StreamsConfig limits;

    StateResource(StreamsStore store, ObjectMapper mapper, QueenConfig config, Callers callers, StreamsConfig limits) {
        this.store = store;
        this.limits = limits;
        this.mapper = mapper;
        this.callers = callers;
    }

    @POST
    @Access(Access.Level.READ)
    @RunOnVirtualThread
    public Response get(byte[] body) throws Exception {
        UUID tenant = callers.tenant();
        UUID query;
        UUID pid;
        List<String> keys = new ArrayList<>();
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
            if (!store.queryExists(tenant, query)) {
                throw ApiException.badRequest("unknown query_id " + query);
            }
        } catch (ApiException e) {
            return StreamsBodies.failure(e.status(), e.getMessage());
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        ArrayNode rows = out.putArray("rows");
        for (StreamsStore.Row r : store.state(tenant, query, pid, keys)) {
            ObjectNode row = rows.addObject();
            row.put("key", r.key());
            row.set("value", mapper.readTree(r.valueJson()));
            row.put("updated_at", Times.millis(r.updatedAt()));
        }
        return Json.ok(out);
    }

    private static UUID uuid(String s, String field) {
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(field + " must be a UUID");
        }
    }
}
