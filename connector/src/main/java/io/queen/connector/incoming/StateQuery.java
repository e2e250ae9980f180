package io.queen.connector.incoming;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queen.connector.client.QueenClient;

/**
 * The stream query ({@code /streams/v1/queries}) under which one incoming channel keeps keyed state on the broker.
 * It is registered on first use (once per channel start; a failed registration is tried again on the next use), and
 * state is read per source partition through {@code /streams/v1/state/get}. Writes go through a cycle
 * ({@code QueenTransactions}), in the same transaction as the outputs and the input's ack.
 * Thread-safe.
 */
public final class StateQuery {

    private final QueenClient client;
    private final String name;
    private final String sourceQueue;
    private final String configHash;
    private final boolean reset;
    private final AtomicReference<CompletableFuture<String>> id = new AtomicReference<>();

    StateQuery(QueenClient client, String name, String sourceQueue, String configHash, boolean reset) {
        this.client = client;
        this.name = name;
        this.sourceQueue = sourceQueue;
        this.configHash = configHash;
        this.reset = reset;
    }

    public String name() {
        return name;
    }

    /** The broker's id of the query, registering it on first use. */
    public CompletionStage<String> id() {
        CompletableFuture<String> f = id.get();
        if (f != null && !f.isCompletedExceptionally()) {
            return f;
        }
        CompletableFuture<String> mine = new CompletableFuture<>();
        if (!id.compareAndSet(f, mine)) {
            return id();
        }
        ObjectNode body = client.mapper().createObjectNode().put("name", name).put("source_queue", sourceQueue)
                .put("config_hash", configHash).put("reset", reset);
        client.streams("/streams/v1/queries", body, true).whenComplete((res, t) -> {
            if (t != null) {
                mine.completeExceptionally(t);
            } else if (!res.path("success").asBoolean(false) || !res.hasNonNull("query_id")) {
                mine.completeExceptionally(new IllegalStateException("registering stream query " + name + " failed: "
                        + res.path("error").asText("no query_id")));
            } else {
                mine.complete(res.get("query_id").asText());
            }
        });
        return mine;
    }

    /** State rows of one source partition: all of them ({@code keys} empty) or the named keys (absent when missing). */
    public CompletionStage<Map<String, JsonNode>> read(String partitionId, List<String> keys) {
        return id().thenCompose(query -> {
            ObjectNode body = client.mapper().createObjectNode().put("query_id", query).put("partition_id", partitionId);
            ArrayNode k = body.putArray("keys");
            new ArrayList<>(keys).forEach(k::add);
            return client.streams("/streams/v1/state/get", body, true);
        }).thenApply(res -> {
            Map<String, JsonNode> out = new LinkedHashMap<>();
            for (JsonNode row : res.path("rows")) {
                out.put(row.get("key").asText(), row.get("value"));
            }
            return out;
        });
    }
}
