package io.queen.dlq;

import io.queen.api.Bodies;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.crypto.PayloadCipher;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/** Wire shapes of the dead-letter routes (API spec 3.12 and 4.5). Stateless, thread-safe. */
final class DlqJson {
    private DlqJson() {
    }

    /** The full DLQ message object of API spec 3.12 ({@code id} is the DLQ row id, the replay address). */
    static ObjectNode message(DlqStore.DeadLetter d, PayloadCipher cipher) {
        ObjectNode m = Json.MAPPER.createObjectNode();
        m.put("id", d.id().toString());
        putUuid(m, "messageId", d.messageId());
        m.put("transactionId", d.transactionId());
        m.put("partitionId", d.partitionId().toString());
        m.put("queue", d.queue());
        m.put("queueName", d.queue());
        m.put("partition", d.partition());
        m.put("partitionName", d.partition());
        m.put("namespace", d.namespace() == null ? "" : d.namespace());
        m.put("task", d.task() == null ? "" : d.task());
        m.put("consumerGroup", d.consumerGroup());
        m.put("errorMessage", d.error() == null || d.error().isEmpty() ? "Retries exhausted" : d.error());
        m.put("retryCount", d.retryCount());
        m.put("offset", d.offset());
        m.set("data", cipher.reveal(payload(d.payload())));
        putUuid(m, "traceId", d.traceId());
        if (d.producerSub() == null) {
            m.putNull("producerSub");
        } else {
            m.put("producerSub", d.producerSub());
        }
        String created = Times.millis(d.messageCreatedAt());
        for (String k : new String[] {"createdAt", "originalCreatedAt", "messageCreatedAt"}) {
            if (created == null) {
                m.putNull(k);
            } else {
                m.put(k, created);
            }
        }
        String failed = Times.millis(d.failedAt());
        m.put("failedAt", failed);
        m.put("movedToDlqAt", failed);
        return m;
    }

    static JsonNode payload(String json) {
        if (json == null) {
            return Json.MAPPER.nullNode();
        }
        try {
            return Json.MAPPER.readTree(json);
        } catch (java.io.IOException e) {
            // jsonb text always parses; keep the raw text rather than failing a browse
            return Json.MAPPER.getNodeFactory().textNode(json);
        }
    }

    /** The answer to a replay: 200 with {@link #replayed}, or 404 {@code notFoundError} when the letter was gone. */
    static Response replayAnswer(DlqReplay.Result r, String notFoundError) {
        if (r.verdict() == DlqReplay.Verdict.GONE) {
            return Json.response(404, notFound(notFoundError));
        }
        return Json.ok(replayed(r));
    }

    /** The outcome body of a replay (API spec 4.5). */
    static ObjectNode replayed(DlqReplay.Result r) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        boolean moved = r.verdict() == DlqReplay.Verdict.MOVED;
        o.put("success", moved);
        o.put("result", moved ? "moved" : "duplicate");
        o.put("queue", r.queue());
        o.put("partition", r.partition());
        o.put("consumerGroup", r.row().consumerGroup());
        o.put("dlqId", r.row().id().toString());
        o.put("originalTransactionId", r.row().transactionId());
        ObjectNode as = o.putObject("replayedAs");
        as.put("index", 0);
        putUuid(as, "message_id", r.messageId());
        as.put("transaction_id", r.transactionId());
        as.put("queueName", r.queue());
        as.put("partition_id", r.partitionId().toString());
        as.put("status", moved ? "queued" : "duplicate");
        as.put("offset", r.offset());
        o.put("dlqRowRemoved", moved);
        return o;
    }

    /** A bulk action's answer; {@code next} is null once no matching letter is left after this batch. */
    static ObjectNode bulk(DlqBulk.Outcome o, boolean replay) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("visited", o.visited());
        if (replay) {
            out.put("replayed", o.replayed());
            out.put("duplicates", o.duplicates());
            out.put("gone", o.gone());
        } else {
            out.put("deleted", o.deleted());
        }
        out.put("remaining", o.remaining());
        if (o.remaining() > 0 && o.last() != null) {
            out.put("next", o.last().token());
        } else {
            out.putNull("next");
        }
        return out;
    }

    static ObjectNode notFound(String error) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("success", false);
        o.put("error", error);
        o.put("dlqRowRemoved", false);
        return o;
    }


    static String optionalName(JsonNode body, String field) {
        String v = Bodies.optionalString(body, field);
        return v == null ? null : io.queen.queue.Names.requireName(v, field);
    }

    private static void putUuid(ObjectNode n, String k, UUID v) {
        if (v == null) {
            n.putNull(k);
        } else {
            n.put(k, v.toString());
        }
    }
}
