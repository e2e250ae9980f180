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
import io.queen.compaction.CompactionSettings;
import io.queen.crypto.PayloadCipher;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * {@code POST /api/v1/configure}: create or fully replace a queue's configuration (API spec 3.1), and with a
 * {@code compaction} object its cleanup policy and compaction settings (the Kafka topic configs, {@link
 * CompactionSettings}); the answer shows both.
 */
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

    @Inject CompactionSettings compaction;

    private static final String POLICY = "cleanupPolicy";

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
        Map<String, String> compact = compaction(req.get("compaction"));
        QueueStore.ConfiguredQueue cq = store.configure(callers.tenant(), queue, namespace, task, options);
        flags.invalidate(callers.tenant(), queue);
        if (compact != null) {
            compaction.setPolicy(callers.tenant(), cq.name(), compact.remove(POLICY));
            for (Map.Entry<String, String> e : compact.entrySet()) {
                compaction.set(cq.id(), e.getKey(), e.getValue());
            }
        }
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
        out.set("compaction", Json.MAPPER.valueToTree(compaction.wireView(callers.tenant(), cq.name(), cq.id())));
        return Json.ok(out);
    }

    /**
     * The request's {@code compaction} object checked (a 400 names the bad field, before anything is written): the
     * cleanup policy and every setting, by their Kafka names, an absent setting null (the broker default); null when
     * the request has no {@code compaction} (the queue's stay as they are).
     */
    private static Map<String, String> compaction(JsonNode req) {
        if (req == null || req.isNull()) {
            return null;
        }
        if (!req.isObject()) {
            throw ApiException.badRequest("compaction must be an object");
        }
        Map<String, String> out = new LinkedHashMap<>();
        try {
            out.put(POLICY, CompactionSettings.policy(req.path(POLICY).asText(CompactionSettings.DELETE)));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("compaction.cleanupPolicy must be delete, compact or compact,delete");
        }
        req.fieldNames().forEachRemaining(f -> {
            if (!f.equals(POLICY) && !CompactionSettings.WIRE_NAMES.contains(f)) {
                throw ApiException.badRequest("compaction." + f + " is not a compaction setting (cleanupPolicy, "
                        + String.join(", ", CompactionSettings.WIRE_NAMES) + ")");
            }
        });
        for (int i = 0; i < CompactionSettings.NAMES.size(); i++) {
            JsonNode v = req.get(CompactionSettings.WIRE_NAMES.get(i));
            String name = CompactionSettings.NAMES.get(i);
            try {
                out.put(name, v == null || v.isNull() ? null
                        : CompactionSettings.check(name, v.asText(), "compaction." + CompactionSettings.WIRE_NAMES.get(i)));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest(e.getMessage());
            }
        }
        return out;
    }

    /** A namespace or task as given, or null when absent or JSON null: configure_queue_v1 derives it from the name. */
    private static String optionalText(JsonNode req, String field) {
        String v = Bodies.optionalString(req, field);
        return v == null ? null : Input.name(v, field);
    }
}
