package io.queen.connector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.spi.Connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.queen.connector.client.JsonPayloads;
import io.queen.connector.client.QueenClient;
import io.queen.connector.client.Wire.PushItem;
import io.queen.connector.health.TraceIds;
import io.queen.connector.incoming.QueenMessage;
import io.queen.connector.incoming.QueenMessageRef;
import io.queen.connector.incoming.QueenSource;
import io.queen.connector.tracing.MessageTracing;
import io.queen.connector.tracing.QueenTrace;
import io.queen.connector.outgoing.QueenSink;
import io.vertx.core.json.JsonObject;

/**
 * Exactly-once consume-transform-produce: the outputs of an input message and the ack of that input are sent as
 * one {@code POST /api/v1/transaction}, so either both happen or neither does.
 *
 * <pre>
 * &#64;Inject QueenTransactions transactions;
 *
 * &#64;Incoming("orders")
 * CompletionStage&lt;Void&gt; process(Message&lt;JsonObject&gt; order) {
 *     return transactions.begin(order)
 *             .toChannel("invoices", invoiceFor(order.getPayload()))   // a smallrye-queen outgoing channel
 *             .toQueue("audit", order.getPayload())                     // or a queue by name
 *             .commit();                                                // acks the input in the same transaction
 * }
 * </pre>
 *
 * Output transaction ids are derived from the input ({@code <input transactionId>:<n>}, n = 0, 1, ... in push
 * order), so a transaction repeated after a crash or an ambiguous failure produces the same ids and can never
 * add a second copy of an output: the broker dedups them, and the input's ack then either commits for the first
 * time or was already committed. If the input's lease was lost (expired and taken by another consumer) the ack,
 * and with it the whole transaction, fails and the outputs are not written.
 * <p>
 * The input must come from a {@code smallrye-queen} incoming channel, and every earlier message of its partition
 * span must already be settled (sequential processing guarantees it). On success the input is acked (its
 * {@code ack()} runs, with nothing left to send to the broker); on failure the returned stage fails and the
 * application nacks the input as usual (its failure strategy applies).
 * <p>
 * <h2>Keyed state</h2>
 * A transaction can also write keyed state of the input's partition ({@link Transaction#state},
 * {@link Transaction#deleteState}); it is then committed through {@code POST /streams/v1/cycle}: state, outputs and
 * the input's ack in one broker transaction, under the input's lease. {@link #readState} reads it back. State lives
 * per (channel's stream query, source partition, key): the broker leases a partition to one consumer at a time, so
 * a read-modify-write per message (sequential processing) sees every earlier commit of that partition. A cycle
 * repeated after an ambiguous failure is refused by the broker ("Message already committed") and counts as acked,
 * so a state change is applied once. The channel's query is named by its {@code state-query} attribute.
 * <p>
 * Thread-safe bean; a {@link Transaction} is used by one thread at a time.
 */
@ApplicationScoped
public class QueenTransactions {

    /** The broker's answer to a cycle whose ack is already committed. */
    static final String ALREADY_COMMITTED = "Message already committed";

    @Inject
    @Connector(QueenConnector.CONNECTOR_NAME)
    Instance<QueenConnector> connectors;

    /** Starts a transaction that will ack {@code input}. */
    public Transaction begin(Message<?> input) {
        return new Transaction(input, queenMessage(input));
    }

    /**
     * The value of {@code key} in the state of {@code input}'s partition (the channel's stream query), or null when
     * the key has none.
     */
    public CompletionStage<JsonObject> readState(Message<?> input, String key) {
        QueenMessage<?> in = queenMessage(input);
        return in.source().stateQuery().read(in.metadata().partitionId(), List.of(key))
                .thenApply(rows -> rows.containsKey(key) ? toObject(rows.get(key)) : null);
    }

    /** Every key of the state of {@code input}'s partition, in key order. */
    public CompletionStage<Map<String, JsonObject>> readAllState(Message<?> input) {
        QueenMessage<?> in = queenMessage(input);
        return in.source().stateQuery().read(in.metadata().partitionId(), List.of()).thenApply(rows -> {
            Map<String, JsonObject> out = new LinkedHashMap<>();
            rows.forEach((k, v) -> out.put(k, toObject(v)));
            return out;
        });
    }

    private static JsonObject toObject(JsonNode node) {
        return new JsonObject(node.toString());
    }

    private static QueenMessage<?> queenMessage(Message<?> input) {
        return input instanceof QueenMessage<?> q ? q
                : input.getMetadata(QueenMessageRef.class).map(QueenMessageRef::message)
                        .orElseThrow(() -> new IllegalArgumentException(
                                "QueenTransactions needs a message received from a smallrye-queen channel"));
    }

    /** Collects the outputs of one input; {@link #commit()} sends everything. Not thread-safe. */
    public final class Transaction {
        private final QueenMessage<?> input;
        /** The message as the application received it (possibly wrapped by SmallRye decorators). */
        private final Message<?> received;
        private final List<PushItem> items = new ArrayList<>();
        /** Outputs per outgoing channel written through {@link #toChannel}: counted on it once committed. */
        private final Map<QueenSink, Integer> perSink = new LinkedHashMap<>();
        /** key -> new value; null = delete. Last write of a key wins. */
        private final Map<String, JsonNode> state = new LinkedHashMap<>();
        private final JsonPayloads payloads;

        Transaction(Message<?> received, QueenMessage<?> input) {
            this.received = received;
            this.input = input;
            this.payloads = new JsonPayloads(input.source().client().mapper());
        }

        /** Adds an output for the queue (and partition, when given in the metadata) named by {@code metadata}. */
        public Transaction push(Object payload, QueenOutgoingMetadata metadata) {
            return push(payload, metadata, input.source().outputTracing());
        }

        /**
         * The output gets a producer span, in the input's trace (see {@link MessageTracing#traceOutput}); the trace
         * id sent is the metadata's, else that span's, else the input's.
         */
        private Transaction push(Object payload, QueenOutgoingMetadata metadata, MessageTracing tracing) {
            if (metadata.queue() == null) {
                throw new IllegalArgumentException("the output's queue is required");
            }
            String txn = input.metadata().transactionId() + ":" + items.size();
            String traceparent = tracing.traceOutput(received, QueenTrace.outgoing(metadata.queue(), metadata.partition()));
            String spanTrace = TraceIds.ofTraceparent(traceparent);
            String trace = metadata.traceId() != null ? metadata.traceId()
                    : spanTrace != null ? spanTrace
                    : input.metadata().traceId() != null ? input.metadata().traceId() : TraceIds.current();
            // A caller-chosen transaction id is kept; otherwise the deterministic id makes retries dedup.
            items.add(new PushItem(metadata.queue(), metadata.partition(), payloads.toJson(payload),
                    metadata.transactionId() != null ? metadata.transactionId() : txn, trace, traceparent));
            return this;
        }

        /** Adds an output for a queue (default partition). */
        public Transaction toQueue(String queue, Object payload) {
            return push(payload, QueenOutgoingMetadata.builder().queue(queue).build());
        }

        /** Adds an output for the queue and partition of a {@code smallrye-queen} outgoing channel. */
        public Transaction toChannel(String channel, Object payload) {
            QueenSink sink = connectors.isResolvable() ? connectors.get().sink(channel) : null;
            if (sink == null) {
                throw new IllegalArgumentException("no smallrye-queen outgoing channel named " + channel);
            }
            push(payload, QueenOutgoingMetadata.builder().queue(sink.queue()).partition(sink.partition()).build(),
                    sink.tracing());
            perSink.merge(sink, 1, Integer::sum);
            return this;
        }

        /**
         * Sets {@code key} of the input partition's state to {@code value} when the transaction commits.
         * {@code value} must serialize to a JSON object (a Vert.x {@code JsonObject}, a Jackson {@code ObjectNode},
         * a map or a bean).
         */
        public Transaction state(String key, Object value) {
            JsonNode json = payloads.toJson(value);
            if (json == null || !json.isObject()) {
                throw new IllegalArgumentException("a state value must be a JSON object (key " + key + ")");
            }
            state.put(requireKey(key), json);
            return this;
        }

        /** Deletes {@code key} from the input partition's state when the transaction commits. */
        public Transaction deleteState(String key) {
            state.put(requireKey(key), null);
            return this;
        }

        private static String requireKey(String key) {
            if (key == null || key.isEmpty()) {
                throw new IllegalArgumentException("a state key must be a non-empty string");
            }
            return key;
        }

        private boolean committedBefore(String error) {
            if (error == null) {
                return false;
            }
            String prefix = input.metadata().transactionId() + ":";
            for (PushItem item : items) {
                if (item.transactionId().startsWith(prefix) && error.contains("Duplicate transactionId: " + item.transactionId())) {
                    return true;
                }
            }
            return false;
        }

        /** The broker committed: the input counts as acked on its channel, the outputs as pushed on theirs. */
        private CompletionStage<Void> committed(QueenSource source) {
            perSink.forEach(QueenSink::countTransactionPush);
            // Then ack the message as received: the broker side is already settled, so this only runs what SmallRye
            // wrapped around the ack (its message observation counts the ack, as for any acked message).
            return source.committedByTransaction(input).thenCompose(x -> received.ack());
        }

        /** Sends the outputs and the input's ack atomically; completes when the broker committed them. */
        public CompletionStage<Void> commit() {
            if (!state.isEmpty()) {
                return commitCycle();
            }
            QueenSource source = input.source();
            QueenClient client = source.client();
            ObjectMapper mapper = client.mapper();
            QueenIncomingMetadata in = input.metadata();
            ArrayNode operations = mapper.createArrayNode();
            if (!items.isEmpty()) {
                ObjectNode push = operations.addObject().put("type", "push");
                ArrayNode array = push.putArray("items");
                items.forEach(i -> array.add(client.pushItemJson(i)));
            }
            ObjectNode ack = operations.addObject().put("type", "ack")
                    .put("transactionId", in.transactionId())
                    .put("partitionId", in.partitionId())
                    .put("status", "completed")
                    .put("consumerGroup", source.ackConsumerGroup());
            List<String> leases = new ArrayList<>();
            if (in.leaseId() != null && !in.leaseId().isEmpty()) {
                ack.put("leaseId", in.leaseId());
                leases.add(in.leaseId());
            }
            return source.beforeTransaction(input)
                    .thenCompose(x -> client.transaction(operations, leases))
                    .thenCompose(result -> {
                        if (!result.success() && committedBefore(result.error())) {
                            // The client re-sent a transaction whose first attempt committed (its answer was
                            // lost): outputs and ack commit atomically, so an existing derived output proves the
                            // input's ack is committed too.
                            return committed(source);
                        }
                        if (!result.success()) {
                            return CompletableFuture.failedFuture(new IllegalStateException(
                                    "transaction for " + in.transactionId() + " rolled back: " + result.error()));
                        }
                        return committed(source);
                    });
        }
    
        /**
         * State + outputs + ack through {@code POST /streams/v1/cycle}. The ack moves the cursor by this one message
         * (every earlier message of the span is settled first) and keeps the lease for the rest of the span; the
         * broker checks that the named message is the one acked, so a repeated cycle cannot ack a later message.
         */
        private CompletionStage<Void> commitCycle() {
            QueenSource source = input.source();
            QueenClient client = source.client();
            QueenIncomingMetadata in = input.metadata();
            if (in.leaseId() == null || in.leaseId().isEmpty()) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "keyed state needs a leased input (the channel must not auto-ack)"));
            }
            return source.beforeTransaction(input)
                    .thenCompose(x -> source.stateQuery().id())
                    .thenCompose(queryId -> {
                        ObjectNode body = client.mapper().createObjectNode().put("query_id", queryId)
                                .put("partition_id", in.partitionId()).put("consumer_group", source.ackConsumerGroup())
                                .put("release_lease", false);
                        ArrayNode ops = body.putArray("state_ops");
                        state.forEach((k, v) -> {
                            ObjectNode op = ops.addObject().put("type", v == null ? "delete" : "upsert").put("key", k);
                            if (v != null) {
                                op.set("value", v);
                            }
                        });
                        ArrayNode array = body.putArray("push_items");
                        items.forEach(i -> array.add(client.pushItemJson(i)));
                        body.putObject("ack").put("transactionId", in.transactionId()).put("leaseId", in.leaseId())
                                .put("status", "completed").put("count", 1);
                        return client.streams("/streams/v1/cycle", body, true);
                    })
                    .thenCompose(res -> {
                        String error = res.path("error").asText("");
                        // a repeat of a cycle whose answer was lost: the first attempt committed state, outputs and ack
                        if (res.path("success").asBoolean(false) || error.startsWith(ALREADY_COMMITTED)) {
                            return committed(source);
                        }
                        return CompletableFuture.failedFuture(new IllegalStateException(
                                "cycle for " + in.transactionId() + " rolled back: " + error));
                    });
        }
    }
}
