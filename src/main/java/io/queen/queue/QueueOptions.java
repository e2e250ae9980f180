package io.queen.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of {@code POST /api/v1/configure}: their wire names, types, configure-time defaults and
 * columns. Configure is a full replace, so every option absent from a request takes the default below (note
 * {@code leaseTime} 300 here versus the column default 60 of an implicitly provisioned queue). Immutable.
 */
public final class QueueOptions {
    enum Type { INT, BOOL }

    record Option(String wire, String column, Type type, Object configureDefault) {
    }

    static final Map<String, Option> OPTIONS = new LinkedHashMap<>();

    static {
        add("priority", "priority", Type.INT, 0);
        add("leaseTime", "lease_time", Type.INT, 300);
        add("retryLimit", "retry_limit", Type.INT, 3);
        add("retryDelay", "retry_delay", Type.INT, 1000);
        add("maxSize", "max_queue_size", Type.INT, 0);
        add("ttl", "ttl", Type.INT, 3600);
        add("deadLetterQueue", "dead_letter_queue", Type.BOOL, true);
        add("dlqAfterMaxRetries", "dlq_after_max_retries", Type.BOOL, true);
        add("delayedProcessing", "delayed_processing", Type.INT, 0);
        add("windowBuffer", "window_buffer", Type.INT, 0);
        add("retentionSeconds", "retention_seconds", Type.INT, 0);
        add("completedRetentionSeconds", "completed_retention_seconds", Type.INT, 0);
        add("retentionEnabled", "retention_enabled", Type.BOOL, false);
        add("encryptionEnabled", "encryption_enabled", Type.BOOL, false);
        add("maxWaitTimeSeconds", "max_wait_time_seconds", Type.INT, 0);
        add("dedupWindowSeconds", "dedup_window_seconds", Type.INT, 3600);
        add("minPopWaitTime", "min_pop_wait_time", Type.INT, 0);
    }

    private static void add(String wire, String column, Type type, Object def) {
        OPTIONS.put(wire, new Option(wire, column, type, def));
    }

    private QueueOptions() {
    }

    /**
     * Validates {@code options} and returns the complete option object (defaults filled in) to store.
     * Unknown keys are ignored (API spec 3.1); a known key with a wrong type or a negative number is a 400
     * naming the option; {@code storage} must be "segments" when present.
     */
    public static ObjectNode resolve(JsonNode options) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        if (options != null && !options.isNull() && !options.isObject()) {
            throw ApiException.badRequest("options must be an object");
        }
        for (Option o : OPTIONS.values()) {
            JsonNode v = options == null ? null : options.get(o.wire());
            if (v == null || v.isNull()) {
                if (o.type() == Type.INT) {
                    out.put(o.wire(), (Integer) o.configureDefault());
                } else {
                    out.put(o.wire(), (Boolean) o.configureDefault());
                }
                continue;
            }
            if (o.type() == Type.INT) {
                if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                    throw ApiException.badRequest("options." + o.wire() + " must be an integer");
                }
                if (v.intValue() < 0) {
                    throw ApiException.badRequest("options." + o.wire() + " must not be negative");
                }
                out.put(o.wire(), v.intValue());
            } else {
                if (!v.isBoolean()) {
                    throw ApiException.badRequest("options." + o.wire() + " must be a boolean");
                }
                out.put(o.wire(), v.booleanValue());
            }
        }
        if (options != null) {
            JsonNode storage = options.get("storage");
            if (storage != null && !storage.isNull() && !"segments".equals(storage.asText(null))) {
                throw ApiException.badRequest("options.storage must be \"segments\" (the only storage engine)");
            }
            int mpw = out.get("minPopWaitTime").intValue();
            if (mpw > 60000) {
                throw ApiException.badRequest("options.minPopWaitTime must be between 0 and 60000 ms");
            }
        }
        return out;
    }

    /** The effective options of a queue row, in wire names and JSON types. */
    public static ObjectNode fromRow(ResultSet rs) throws SQLException {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (Option o : OPTIONS.values()) {
            if (o.type() == Type.INT) {
                out.put(o.wire(), rs.getInt(o.column()));
            } else {
                out.put(o.wire(), rs.getBoolean(o.column()));
            }
        }
        out.put("storage", "segments");
        return out;
    }

    static Iterator<String> wireNames() {
        return OPTIONS.keySet().iterator();
    }
}
