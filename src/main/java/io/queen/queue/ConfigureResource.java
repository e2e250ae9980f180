package io.queen.queue;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Input;
import io.queen.api.Bodies;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.crypto.PayloadCipher;
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
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class ConfigureResource {
    private static final Logger LOG = Logger.getLogger(ConfigureResource.class);

    @Inject QueueStore store;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;

    @Inject QueueFlags flags;

    @Inject PayloadCipher cipher;

    @Access(Access.Level.WRITE)
    @POST
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
        if (options.path("encryptionEnabled").asBoolean(false) && !cipher.enabled()) {
            throw ApiException.badRequest("options.encryptionEnabled needs QUEEN_ENCRYPTION_KEY (64 hex chars) to be"
                    + " set on the broker; without it payloads would be stored in plaintext");
        }
        QueueStore.ConfiguredQueue cq = store.configure(callers.tenant(), queue, namespace, task, options);
        flags.invalidate(callers.tenant(), queue);
        LOG.infof("queue configured: tenant=%s queue=%s namespace=%s task=%s options=%s", callers.tenant(), cq.name(), cq.namespace(), cq.task(),
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

    /** A namespace or task as given, or null when absent or JSON null: configure_queue_v1 derives it from the name. */
    private static String optionalText(JsonNode req, String field) {
        String v = Bodies.optionalString(req, field);
        return v == null ? null : Input.name(v, field);
    }
}
