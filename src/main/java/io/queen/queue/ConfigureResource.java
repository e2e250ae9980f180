package io.queen.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Json;
import io.queen.config.QueenConfig;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;
import org.jboss.logging.Logger;

/** {@code POST /api/v1/configure}: create or fully replace a queue's configuration (API spec 3.1). */
@Path("/api/v1/configure")
public class ConfigureResource {
    private static final Logger LOG = Logger.getLogger(ConfigureResource.class);

    private final QueueStore store;
    private final ObjectMapper mapper;
    private final UUID tenant;

    private final QueueFlags flags;

    ConfigureResource(QueueStore store, QueueFlags flags, ObjectMapper mapper, QueenConfig config) {
        this.store = store;
        this.flags = flags;
        this.mapper = mapper;
        this.tenant = UUID.fromString(config.defaultTenant());
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response configure(byte[] body) throws SQLException {
        JsonNode req = Bodies.requireObject(mapper, body);
        JsonNode q = req.get("queue");
        if (q == null || !q.isTextual()) {
            throw ApiException.badRequest("queue is required");
        }
        String queue = Names.requireName(q.textValue(), "queue");
        String namespace = optionalText(req, "namespace");
        String task = optionalText(req, "task");
        ObjectNode options = QueueOptions.resolve(req.get("options"));
        QueueStore.ConfiguredQueue cq = store.configure(tenant, queue, namespace, task, options);
        flags.invalidate(tenant, queue);
        LOG.infof("queue configured: queue=%s namespace=%s task=%s options=%s", cq.name(), cq.namespace(), cq.task(),
                cq.options());
        ObjectNode out = mapper.createObjectNode();
        out.put("configured", true);
        out.put("queueId", cq.id().toString());
        out.putNull("partitionId");
        out.put("queue", cq.name());
        out.put("namespace", cq.namespace() == null ? "" : cq.namespace());
        out.put("task", cq.task() == null ? "" : cq.task());
        out.put("storage", "segments");
        out.set("options", cq.options());
        return Json.ok(out);
    }

    private static String optionalText(JsonNode req, String field) {
        JsonNode v = req.get(field);
        if (v == null || v.isNull()) {
            return "";
        }
        if (!v.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        if (v.textValue().length() > Names.MAX_NAME_CHARS) {
            throw ApiException.badRequest(field + " is longer than " + Names.MAX_NAME_CHARS + " characters");
        }
        return v.textValue();
    }
}
