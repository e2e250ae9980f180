package io.queen.push;

import io.quarkus.runtime.configuration.MemorySize;
import io.queen.api.Failures;
import io.queen.api.JsonBytes;
import io.queen.auth.Access;
import io.queen.auth.Caller;
import io.queen.auth.Callers;
import io.queen.auth.ProducerSub;
import io.queen.config.QueenConfig;
import io.queen.maintenance.PushSpool;
import io.queen.metrics.OpsMeter;
import io.queen.segment.TransactionHash;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code POST /api/v1/push} (API spec 3.3): validates the whole request first (a bad item rejects it and
 * nothing is written), collapses repeats of a (queue, partition, transactionId) inside the request onto the
 * first occurrence, hands the rest to {@link PushFusion} and answers one result per item in request order once
 * every item's segment has committed (read-your-writes).
 */
@Path("/api/v1/push")
public class PushResource {
    private final PushFusion fusion;
    private final PushRequestParser parser;
    private final Callers callers;

    private final PushEncryption encryption;
    private final PushSpool spool;
    private final OpsMeter meter;

    PushResource(PushFusion fusion, PushEncryption encryption, QueenConfig config, Callers callers, PushSpool spool,
            @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBody, OpsMeter meter) {
        this.fusion = fusion;
        this.meter = meter;
        this.encryption = encryption;
        this.callers = callers;
        this.spool = spool;
        this.parser = new PushRequestParser(config.push().maxItems(), maxBody.asLongValue());
    }

    /** A (queue, partition) of the request; names hold no control characters, so this equals the old 0x1F-joined key. */
    private record Lane(String queue, String partition) {
    }

    /** Layer-1 dedup key: (queue, partition, transactionId). */
    private record ItemKey(Lane lane, String transactionId) {
    }

    @Access(Access.Level.PRODUCE)
    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response push(byte[] body) throws SQLException {
        Caller caller = callers.current();
        UUID tenant = caller.tenant();
        List<PushItem> items = encryption.apply(tenant, ProducerSub.stamp(caller, parser.parse(body)));
        // push maintenance, or buffered pushes still draining after it (a push must not overtake them)
        if (held()) {
            return buffered(tenant, items);
        }
        int n = items.size();
        @SuppressWarnings("unchecked")
        CompletableFuture<PushFusion.Verdict>[] futures = new CompletableFuture[n];
        int[] leaderOf = new int[n];
        Map<ItemKey, Integer> firstByKey = new HashMap<>(Math.max(16, n * 2));
        Map<Lane, List<PushItem>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            PushItem it = items.get(i);
            Lane lane = new Lane(it.queue(), it.partition());
            Integer first = firstByKey.putIfAbsent(new ItemKey(lane, it.transactionId()), i);
            leaderOf[i] = first == null ? i : first;
            if (first == null) {
                byPartition.computeIfAbsent(lane, k -> new ArrayList<>()).add(it);
            }
        }
        List<Runnable> flushes = new ArrayList<>(2);
        try {
            for (List<PushItem> group : byPartition.values()) {
                List<byte[]> hashes = new ArrayList<>(group.size());
                for (PushItem it : group) {
                    hashes.add(TransactionHash.of(it.transactionIdUtf8()));
                }
                List<CompletableFuture<PushFusion.Verdict>> fs =
                        fusion.submit(tenant, group.get(0).queue(), group.get(0).partition(), group, hashes, flushes);
                for (int k = 0; k < group.size(); k++) {
                    futures[group.get(k).index()] = fs.get(k);
                }
            }
        } finally {
            // Every partition is submitted first, so that the request's partitions commit in parallel (or
            // bundled). Always run: a collected flush may carry other requests' items, and its lanes stay in
            // flight until it has run.
            fusion.run(flushes);
        }
        JsonBytes out = new JsonBytes(64 + n * 400);
        out.raw('[');
        String firstError = null;
        boolean retryable = false;
        JsonBytes.Memo queues = new JsonBytes.Memo();
        JsonBytes.Memo partitions = new JsonBytes.Memo();
        countRequest(tenant, byPartition);
        OpsMeter.QueueMeter qm = null;
        String qmName = null;
        for (int i = 0; i < n; i++) {
            PushItem it = items.get(i);
            PushFusion.Verdict v = futures[leaderOf[i]].join();
            if (!it.queue().equals(qmName)) {
                qmName = it.queue();  // items of a queue are usually adjacent: one meter lookup per run
                qm = meter.queue(tenant, qmName);
            }
            if (leaderOf[i] != i && v.status() == PushFusion.Status.QUEUED) {
                v = new PushFusion.Verdict(PushFusion.Status.DUPLICATE, v.messageId(), v.partitionId(), -1, null, false);
            }
            out.raw(i == 0 ? INDEX_FIRST : INDEX_NEXT).number(i);
            switch (v.status()) {
                case QUEUED -> {
                    qm.increment(OpsMeter.PUSH_MESSAGES);
                    out.raw(QUEUED);
                    ids(out, it, v, queues, partitions);
                    out.raw(PARTITION_ID).uuid(v.partitionId());
                    out.raw(TRACE_ID);
                    if (it.traceId() == null) {
                        out.raw(NULL);
                    } else {
                        out.uuid(it.traceId());
                    }
                    out.raw(OFFSET).number(v.offset());
                }
                case DUPLICATE -> {
                    out.raw(DUPLICATE);
                    ids(out, it, v, queues, partitions);
                    if (v.partitionId() != null) {
                        out.raw(PARTITION_ID).uuid(v.partitionId());
                    }
                }
                case FAILED -> {
                    out.raw(",\"status\":\"failed\"");
                    out.raw(",\"transaction_id\":").string(it.transactionId());
                    out.raw(",\"transactionId\":").string(it.transactionId());
                    out.raw(",\"queue\":").string(it.queue());
                    out.raw(",\"partition\":").string(it.partition());
                    out.raw(",\"error\":").string(v.error());
                    if (firstError == null) {
                        firstError = v.error();
                    }
                    retryable |= v.retryable();
                }
            }
            out.raw('}');
        }
        out.raw(']');
        if (firstError != null) {
            // Clients retry a 5xx with the same transaction ids; dedup turns the items that did commit into
            // "duplicate", so a retry is safe. Each item still says what happened to it.
            // The cause was logged where it happened (PushFusion); the answer carries no driver text. An
            // unavailable database or lock contention is a 503 with Retry-After: the retry is expected to work.
            byte[] itemsJson = out.toByteArray();
            JsonBytes err = new JsonBytes(256);
            err.raw("{\"error\":").string("push failed for some items: " + firstError).raw(",\"items\":");
            Response.ResponseBuilder rb = Response.status(retryable ? 503 : 500).type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(err.raw(itemsJson).raw('}').toByteArray());
            if (retryable) {
                rb.header("Retry-After", Failures.RETRY_AFTER_SECONDS);
            }
            return rb.build();
        }
        return bytes(201, out.toByteArray());
    }

    /** {@link PushSpool#holdsPushes}; interrupted while waiting for the drain, the push is spooled. */
    private boolean held() throws SQLException {
        try {
            return spool.holdsPushes();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** Spools the request durably and answers every item {@code buffered} (API spec 4.13). */
    private Response buffered(UUID tenant, List<PushItem> items) {
        try {
            spool.append(tenant, items);
        } catch (IOException e) {
            return Response.status(503).header("Retry-After", "1").type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(new JsonBytes(128).raw("{\"error\":").string("push maintenance: the broker's spool"
                            + " could not be written; nothing was stored").raw('}').toByteArray()).build();
        }
        JsonBytes out = new JsonBytes(64 + items.size() * 200);
        out.raw('[');
        for (int i = 0; i < items.size(); i++) {
            PushItem it = items.get(i);
            out.raw(i == 0 ? INDEX_FIRST : INDEX_NEXT).number(i).raw(",\"status\":\"buffered\"");
            out.raw(TXN_SNAKE).string(it.transactionId()).raw(TXN_CAMEL).string(it.transactionId());
            out.raw(MESSAGE_ID).uuid(it.messageId());
            out.raw(QUEUE).string(it.queue()).raw(PARTITION).string(it.partition()).raw('}');
        }
        return bytes(201, out.raw(']').toByteArray());
    }

    /** One push request for each queue the request names (a request naming two queues counts for both). */
    private void countRequest(UUID tenant, Map<Lane, List<PushItem>> byPartition) {
        List<String> seen = new ArrayList<>(2);
        for (Lane lane : byPartition.keySet()) {
            if (!seen.contains(lane.queue())) {
                seen.add(lane.queue());
                meter.queue(tenant, lane.queue()).increment(OpsMeter.PUSH_REQUESTS);
            }
        }
    }

    private static Response bytes(int status, byte[] json) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(json).build();
    }

    private static final byte[] INDEX_FIRST = JsonBytes.ascii("{\"index\":");
    private static final byte[] INDEX_NEXT = JsonBytes.ascii(",{\"index\":");
    private static final byte[] QUEUED = JsonBytes.ascii(",\"status\":\"queued\"");
    private static final byte[] DUPLICATE = JsonBytes.ascii(",\"status\":\"duplicate\"");
    private static final byte[] PARTITION_ID = JsonBytes.ascii(",\"partition_id\":");
    private static final byte[] TRACE_ID = JsonBytes.ascii(",\"trace_id\":");
    private static final byte[] OFFSET = JsonBytes.ascii(",\"offset\":");
    private static final byte[] NULL = JsonBytes.ascii("null");
    private static final byte[] TXN_SNAKE = JsonBytes.ascii(",\"transaction_id\":");
    private static final byte[] TXN_CAMEL = JsonBytes.ascii(",\"transactionId\":");
    private static final byte[] MESSAGE_ID = JsonBytes.ascii(",\"message_id\":");
    private static final byte[] QUEUE_NAME = JsonBytes.ascii(",\"queueName\":");
    private static final byte[] QUEUE = JsonBytes.ascii(",\"queue\":");
    private static final byte[] PARTITION = JsonBytes.ascii(",\"partition\":");

    /** Same key order and values as the tree this replaced: transaction_id, transactionId, message_id, queueName, queue, partition. */
    private static void ids(JsonBytes out, PushItem it, PushFusion.Verdict v, JsonBytes.Memo queues,
                            JsonBytes.Memo partitions) {
        byte[] queue = queues.of(it.queue());
        out.raw(TXN_SNAKE);
        int from = out.size();
        int to = out.string(it.transactionId()).size();
        out.raw(TXN_CAMEL).again(from, to);
        out.raw(MESSAGE_ID).uuid(v.messageId());
        out.raw(QUEUE_NAME).raw(queue);
        out.raw(QUEUE).raw(queue);
        out.raw(PARTITION).raw(partitions.of(it.partition()));
    }
}
