package io.queen.pop;

import io.queen.api.ApiException;
import io.queen.api.Input;
import io.queen.api.Times;
import io.queen.config.QueenConfig;
import io.queen.queue.Names;
import java.time.Instant;

/**
 * The parameters of a pop, parsed with the API's tolerance rules (spec 1.6): booleans are {@code true}/{@code 1},
 * unparseable integers fall back to the route default, an empty value counts as absent. Immutable.
 */
public record PopRequest(String queue, String partition, String namespace, String task, int batch, boolean longPoll,
        long timeoutMs, String group, boolean autoAck, String subscriptionMode, Instant subscriptionFrom,
        int partitions) {

    /** The same pop with another long-poll timeout (what is left of it after a hold). */
    public PopRequest withTimeoutMs(long ms) {
        return new PopRequest(queue, partition, namespace, task, batch, longPoll, ms, group, autoAck, subscriptionMode,
                subscriptionFrom, partitions);
    }

    public static PopRequest parse(QueenConfig config, String queue, String partition, String namespace, String task,
            String batch, String wait, String timeout, String group, String autoAck, String subMode, String subFrom,
            String partitions) {
        if (queue != null) {
            Names.requireName(queue, "queue");
        }
        if (partition != null) {
            Names.requireName(partition, "partition");
        }
        int b = Math.max(1, Math.min(integer(batch, 1), config.pop().maxBatch()));
        long t = Math.max(0, Math.min(integer(timeout, config.pop().defaultTimeoutMs()), config.pop().maxTimeoutMs()));
        String g = blank(group) ? Names.QUEUE_MODE : Input.name(group, "consumerGroup");
        Input.name(namespace, "namespace");
        Input.name(task, "task");
        String mode = blank(subMode) ? config.pop().defaultSubscriptionMode() : subMode;
        mode = mode.equalsIgnoreCase("new") || mode.equalsIgnoreCase("new-only") ? "new" : "all";
        Instant from = null;
        if (!blank(subFrom)) {
            if (subFrom.equalsIgnoreCase("now")) {
                mode = "new";
            } else {
                from = timestamp(subFrom);
            }
        }
        int parts = partition != null ? 1 : Math.max(1, Math.min(integer(partitions, 1), 1000));
        return new PopRequest(queue, partition, blank(namespace) ? null : namespace, blank(task) ? null : task, b,
                bool(wait), t, g, bool(autoAck), mode, from, parts);
    }

    static boolean bool(String v) {
        return v != null && (v.equalsIgnoreCase("true") || v.equals("1"));
    }

    static int integer(String v, int def) {
        if (blank(v)) {
            return def;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            return def;
        }
    }

    static boolean blank(String v) {
        return v == null || v.isBlank();
    }

    /**
     * ISO-8601 as {@link Times#parse}; an unparseable value silently falls back to the default (spec 3.4), one
     * outside the accepted range is a 400.
     */
    static Instant timestamp(String v) {
        return Times.parseLenient(v, "subscriptionFrom");
    }

    static void requireNamespaceOrTask(String namespace, String task) {
        if (blank(namespace) && blank(task)) {
            throw ApiException.badRequest("namespace or task is required");
        }
    }
}
