package io.queen.streams;

import jakarta.inject.Inject;
import io.queen.api.Bodies;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Input;
import io.queen.api.Json;
import io.queen.queue.Names;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/**
 * {@code POST /streams/v1/queries} (API spec 5.1): registers a stream query or checks a redeploy against its
 * registration. A changed {@code config_hash} (or source queue) without {@code reset:true} is a 409 and changes
 * nothing; {@code reset:true} takes the new shape and wipes the query's state. Every string passes the input rules
 * of {@code /push} (queue names as queue names, {@link Input} for the rest) before any SQL. Thread-safe (stateless).
 */
@Path("/streams/v1/queries")
@RunOnVirtualThread
public class QueriesResource {
    @Inject StreamsStore store;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @POST
    @Access(Access.Level.WRITE)
    public Response register(byte[] body) throws Exception {
        UUID tenant = callers.tenant();
        JsonNode req;
        String name;
        String source;
        String hash;
        String sink;
        boolean reset;
        try {
            req = StreamsBodies.object(mapper, body);
            name = Input.name(StreamsBodies.required(req, "name"), "name");
            source = Names.requireName(StreamsBodies.required(req, "source_queue"), "source_queue");
            hash = Input.token(StreamsBodies.required(req, "config_hash"), "config_hash");
            sink = Bodies.optionalString(req, "sink_queue");
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
            reset = r != null && r.booleanValue();
        } catch (ApiException e) {
            return StreamsBodies.failure(e.status(), e.getMessage());
        }
        StreamsStore.Registration reg = store.register(tenant, name, source, sink, hash, reset);
        if (reg.conflict() != null) {
            return StreamsBodies.failure(409, reg.conflict());
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("success", true);
        out.put("query_id", reg.queryId().toString());
        out.put("name", name);
        out.put("config_hash", hash);
        out.put("fresh", reg.fresh());
        out.put("reset", reg.reset());
        return Json.ok(out);
    }
}
