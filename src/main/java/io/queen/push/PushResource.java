package io.queen.push;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.config.QueenConfig;
import io.queen.segment.TransactionHash;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /api/v1/push} (API spec 3.3): validates the whole request first (a bad item rejects it and
 * nothing is written), collapses repeats of a (queue, partition, transactionId) inside the request onto the
 * first occurrence, hands the rest to {@link PushFusion} and answers one result per item in request order once
 * every item's segment has committed (read-your-writes).
 */
@Path("/api/v1/push")
public class PushResource {
    private final PushFusion fusion;
    private final ObjectMapper mapper;
    private final PushRequestParser parser;
    private final UUID tenant;

    private final PushEncryption encryption;

    PushResource(PushFusion fusion, PushEncryption encryption, ObjectMapper mapper, QueenConfig config) {
        this.fusion = fusion;
        this.encryption = encryption;
        this.mapper = mapper;
        this.parser = new PushRequestParser(config.push().maxItems());
        this.tenant = UUID.fromString(config.defaultTenant());
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response push(byte[] body) throws SQLException {
        List<PushItem> items = encryption.apply(tenant, parser.parse(body));
        int n = items.size();
        @SuppressWarnings("unchecked")
        CompletableFuture<PushFusion.Verdict>[] futures = new CompletableFuture[n];
        int[] leaderOf = new int[n];
        Map<String, Integer> firstByKey = new HashMap<>();
        Map<String, List<PushItem>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            PushItem it = items.get(i);
            String lane = it.queue() + '\u001f' + it.partition();
            Integer first = firstByKey.putIfAbsent(lane + '\u001f' + it.transactionId(), i);
            leaderOf[i] = first == null ? i : first;
            if (first == null) {
                byPartition.computeIfAbsent(lane, k -> new ArrayList<>()).add(it);
            }
        }
        for (List<PushItem> group : byPartition.values()) {
            List<byte[]> hashes = new ArrayList<>(group.size());
            for (PushItem it : group) {
                hashes.add(TransactionHash.of(it.transactionIdUtf8()));
            }
            List<CompletableFuture<PushFusion.Verdict>> fs =
                    fusion.submit(tenant, group.get(0).queue(), group.get(0).partition(), group, hashes);
            for (int k = 0; k < group.size(); k++) {
                futures[group.get(k).index()] = fs.get(k);
            }
        }
        ArrayNode out = mapper.createArrayNode();
        String firstError = null;
        for (int i = 0; i < n; i++) {
            PushItem it = items.get(i);
            PushFusion.Verdict v = futures[leaderOf[i]].join();
            if (leaderOf[i] != i && v.status() == PushFusion.Status.QUEUED) {
                v = new PushFusion.Verdict(PushFusion.Status.DUPLICATE, v.messageId(), v.partitionId(), -1, null);
            }
            ObjectNode r = out.addObject();
            r.put("index", i);
            switch (v.status()) {
                case QUEUED -> {
                    r.put("status", "queued");
                    ids(r, it, v);
                    r.put("partition_id", v.partitionId().toString());
                    if (it.traceId() == null) {
                        r.putNull("trace_id");
                    } else {
                        r.put("trace_id", it.traceId().toString());
                    }
                    r.put("offset", v.offset());
                }
                case DUPLICATE -> {
                    r.put("status", "duplicate");
                    ids(r, it, v);
                    if (v.partitionId() != null) {
                        r.put("partition_id", v.partitionId().toString());
                    }
                }
                case FAILED -> {
                    r.put("status", "failed");
                    r.put("transaction_id", it.transactionId());
                    r.put("transactionId", it.transactionId());
                    r.put("queue", it.queue());
                    r.put("partition", it.partition());
                    r.put("error", v.error());
                    if (firstError == null) {
                        firstError = v.error();
                    }
                }
            }
        }
        if (firstError != null) {
            // Clients retry a 5xx with the same transaction ids; dedup turns the items that did commit into
            // "duplicate", so a retry is safe. Each item still says what happened to it.
            ObjectNode err = mapper.createObjectNode();
            err.put("error", "push failed for some items: " + firstError);
            err.set("items", out);
            return Json.response(500, err);
        }
        return Json.response(201, out);
    }

    private static void ids(ObjectNode r, PushItem it, PushFusion.Verdict v) {
        r.put("transaction_id", it.transactionId());
        r.put("transactionId", it.transactionId());
        r.put("message_id", v.messageId().toString());
        r.put("queueName", it.queue());
        r.put("queue", it.queue());
        r.put("partition", it.partition());
    }
}
