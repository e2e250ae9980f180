package io.queen.ack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Ids;
import io.queen.api.Input;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Caller;
import io.queen.auth.Callers;
import io.queen.tracing.BrokerTracing;
import io.opentelemetry.api.trace.SpanKind;
import io.queen.metrics.OpsMeter;
import io.queen.push.PushEncryption;
import io.queen.push.LogWriter;
import io.queen.push.PushItem;
import io.queen.push.PushRequestParser;
import io.queen.push.PushStore;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * {@code POST /api/v1/transaction} (API spec 3.8): pushes and acks in ONE PostgreSQL transaction, all or
 * nothing. Pushes are written through {@link LogWriter.InTransaction} (one {@code queen.log_push_multi_v1} call,
 * partition rows locked in ascending id), then acks run in ascending (partition_id, group): the global lock order.
 * Any failing operation (an ack of an unknown message, a duplicate transaction id, an invalid item) rolls
 * everything back and answers {@code success:false}; a malformed request is a 400.
 */
@Path("/api/v1/transaction")
public class TransactionResource {
    private static final Logger LOG = Logger.getLogger(TransactionResource.class);

    private final AckService acks;
    private final AckStore ackStore;
    private final LogWriter writer;
    private final ObjectMapper mapper;
    private final Callers callers;
    private final OpsMeter meter;
    private final BrokerTracing tracing;

    TransactionResource(AckService acks, AckStore ackStore, LogWriter writer, ObjectMapper mapper, Callers callers,
            OpsMeter meter, BrokerTracing tracing) {
        this.meter = meter;
        this.tracing = tracing;
        this.acks = acks;
        this.ackStore = ackStore;
        this.writer = writer;
        this.mapper = mapper;
        this.callers = callers;
    }

    private record AckOp(int resultIndex, AckService.AckItem item, String group) {
    }

    private static final class TxnFailed extends Exception {
        TxnFailed(String message) {
            super(message, null, false, false);
        }
    }

    @Access(Access.Level.WRITE)
    @POST
    @RunOnVirtualThread
    public Response transaction(byte[] body, @HeaderParam("traceparent") String traceparent) throws Exception {
        return BrokerTracing.within(tracing.start("queen transaction", SpanKind.SERVER, traceparent),
                () -> transaction(body));
    }

    private Response transaction(byte[] body) throws Exception {
        JsonNode req = Bodies.requireObject(mapper, body);
        JsonNode ops = Bodies.requiredArray(req, "operations", "operations array required");
        if (ops.isEmpty()) {
            throw ApiException.badRequest("operations array cannot be empty");
        }
        String txId = UUID.randomUUID().toString();
        ArrayNode results = mapper.createArrayNode();
        List<PushItem> pushes = new ArrayList<>();
        List<Integer> pushResultIndex = new ArrayList<>();
        List<AckOp> ackOps = new ArrayList<>();
        String unknown = null;
        for (int o = 0; o < ops.size(); o++) {
            JsonNode op = ops.get(o);
            String type = op == null || !op.hasNonNull("type") ? null : op.get("type").asText();
            if (type != null && !Input.isValid(type, Input.MAX_TOKEN_CHARS)) {
                Input.token(type, "operations[" + o + "].type");   // echoed in the answer: must be writable
            }
            if ("push".equals(type)) {
                JsonNode items = op.get("items");
                if (items == null || !items.isArray()) {
                    throw ApiException.badRequest("operations[" + o + "].items array is required");
                }
                for (JsonNode it : items) {
                    pushes.add(parsePush(pushes.size(), it, o));
                    pushResultIndex.add(results.size());
                    results.addObject().put("index", results.size() - 1).put("type", "push");
                }
            } else if ("ack".equals(type)) {
                String txn = AckResource.text(op, "transactionId");
                String pid = AckResource.text(op, "partitionId");
                if (txn == null || pid == null) {
                    throw ApiException.badRequest("operations[" + o + "]: ack needs transactionId and partitionId");
                }
                String at = "operations[" + o + "].";
                Input.text(txn, at + "transactionId");
                Input.token(pid, at + "partitionId");
                ackOps.add(new AckOp(results.size(), new AckService.AckItem(ackOps.size(), txn, pid,
                        Input.token(AckResource.optional(op, "status"), at + "status"),
                        Input.token(AckResource.optional(op, "leaseId"), at + "leaseId"),
                        Input.text(AckResource.optional(op, "error"), at + "error")), AckResource.group(op)));
                results.addObject().put("index", results.size() - 1).put("type", "ack");
            } else if (unknown == null) {
                unknown = "Unknown operation type: " + type;
            }
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("transactionId", txId);
        if (unknown != null) {
            return failed(out, unknown);
        }
        Caller caller = callers.current();
        UUID tenant = caller.tenant();
        pushes = writer.stored(caller, pushes);
        List<AckCount> counts = new ArrayList<>();
        LogWriter.InTransaction log;
        try (Connection c = ackStore.transaction()) {
            log = writer.inTransaction(c, tenant);
            try {
                pushAll(log, pushes, pushResultIndex, results);
                ackAll(c, tenant, ackOps, results, counts);
                c.commit();
            } catch (TxnFailed e) {
                c.rollback();
                return failed(out, e.getMessage());
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
        log.committed();
        countCommitted(tenant, pushes, counts);
        out.put("success", true);
        out.set("results", results);
        return Json.ok(out);
    }

    private PushItem parsePush(int index, JsonNode it, int op) throws Exception {
        if (it == null || !it.isObject()) {
            throw ApiException.badRequest("operations[" + op + "].items[" + index + "] must be an object");
        }
        JsonNode q = it.get("queue");
        if (q == null || !q.isTextual()) {
            throw ApiException.badRequest("Queue must be a string (operations[" + op + "].items.queue)");
        }
        JsonNode payload = it.get("payload");
        byte[] bytes = payload == null ? null : mapper.writeValueAsBytes(payload);
        return PushRequestParser.item(index, q.textValue(), AckResource.optional(it, "partition"),
                AckResource.optional(it, "transactionId"), AckResource.optional(it, "traceId"),
                AckResource.optional(it, "traceparent"), PushRequestParser.key(it, index), bytes);
    }

    private void pushAll(LogWriter.InTransaction log, List<PushItem> pushes, List<Integer> resultIndex,
            ArrayNode results) throws SQLException, TxnFailed {
        if (pushes.isEmpty()) {
            return;
        }
        Map<String, List<PushItem>> byPartition = new LinkedHashMap<>();
        for (PushItem p : pushes) {
            byPartition.computeIfAbsent(p.queue() + '\u001f' + p.partition(), k -> new ArrayList<>()).add(p);
        }
        List<List<PushItem>> groups = new ArrayList<>(byPartition.values());
        for (List<PushItem> g : groups) {
            Set<String> seen = new HashSet<>();
            for (PushItem p : g) {
                if (!seen.add(p.transactionId())) {
                    throw new TxnFailed("Duplicate transactionId in transaction: " + p.transactionId());
                }
            }
        }
        PushStore.SegmentResult[] res = log.write(groups);
        for (int i = 0; i < res.length; i++) {
            if (res[i].duplicate()) {
                throw new TxnFailed("Duplicate transactionId: " + groups.get(i).get(res[i].dupIndexes()[0]).transactionId());
            }
            List<PushItem> g = groups.get(i);
            for (int k = 0; k < g.size(); k++) {
                PushItem p = g.get(k);
                ObjectNode r = (ObjectNode) results.get(resultIndex.get(p.index()));
                r.put("success", true);
                r.put("transactionId", p.transactionId());
                r.put("messageId", p.messageId().toString());
                r.put("partitionId", res[i].partitionId().toString());
                r.put("queueName", p.queue());
                r.put("offset", res[i].baseOffset() + k);
            }
        }
    }

    /**
     * Metrics of a committed transaction besides its pushed messages ({@link LogWriter.InTransaction#committed}):
     * one transaction per queue it touched, and its acks.
     */
    private void countCommitted(UUID tenant, List<PushItem> pushes, List<AckCount> ackCounts) {
        List<String> queues = new ArrayList<>(2);
        for (PushItem p : pushes) {
            if (!queues.contains(p.queue())) {
                queues.add(p.queue());
            }
        }
        for (AckCount a : ackCounts) {
            acks.count(tenant, a.items(), a.results(), a.group(), true);
            for (AckService.AckResult r : a.results()) {
                if (r.queueName() != null && !queues.contains(r.queueName())) {
                    queues.add(r.queueName());
                }
            }
        }
        for (String q : queues) {
            meter.queue(tenant, q).increment(OpsMeter.TRANSACTIONS);
        }
    }

    private record AckCount(List<AckService.AckItem> items, List<AckService.AckResult> results, String group) {
    }

    private void ackAll(Connection c, UUID tenant, List<AckOp> ops, ArrayNode results, List<AckCount> counts)
            throws SQLException, TxnFailed {
        // one apply per (partition, group) cursor row, in (partition_id, group) order: the global lock order that
        // ack fusion (log_ack_multi_v1) and queue delete also follow, so the cursor rows of a transaction spanning
        // several groups cannot be locked in an order that closes a cycle with them
        Map<String, List<AckOp>> byCursor = new TreeMap<>();
        for (AckOp op : ops) {
            UUID pid = Ids.uuidOrNull(op.item().partitionId());
            String key = (pid == null ? op.item().partitionId() : pid.toString()) + '\u0000' + op.group();
            byCursor.computeIfAbsent(key, k -> new ArrayList<>()).add(op);
        }
        for (Map.Entry<String, List<AckOp>> e : byCursor.entrySet()) {
            String group = e.getValue().get(0).group();
            List<AckService.AckItem> items = new ArrayList<>();
            for (int i = 0; i < e.getValue().size(); i++) {
                AckService.AckItem it = e.getValue().get(i).item();
                items.add(new AckService.AckItem(i, it.transactionId(), it.partitionId(), it.status(), it.leaseId(),
                        it.error()));
            }
            List<AckService.AckResult> rs = acks.apply(c, tenant, items, group, true);
            counts.add(new AckCount(items, rs, group));
            for (int i = 0; i < rs.size(); i++) {
                AckService.AckResult r = rs.get(i);
                ObjectNode node = (ObjectNode) results.get(e.getValue().get(i).resultIndex());
                node.put("success", r.success());
                node.put("transactionId", r.transactionId());
                node.put("dlq", r.dlq());
                if (!r.success()) {
                    node.put("error", r.error());
                    throw new TxnFailed("ACK operation failed: " + r.error());
                }
                node.putNull("error");
            }
        }
    }

    private Response failed(ObjectNode out, String error) {
        LOG.debugf("transaction rolled back: %s", error);
        out.put("success", false);
        out.put("error", error);
        return Json.ok(out);
    }
}
