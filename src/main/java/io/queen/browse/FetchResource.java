package io.queen.browse;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Bodies;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.config.QueenConfig;
import io.queen.queue.Names;
import io.queen.crypto.PayloadCipher;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code POST /api/v1/fetch} (reference-notes 4.7): a non-destructive batched read by absolute offset, no lease
 * and no cursor (the SQL function is STABLE). Request {@code {entries:[{queue, partition (default "Default"),
 * offset, maxBytes (default 1 MiB)}] (at most 1024), maxWaitMs, minBytes}}; response {@code {entries:[{queue,
 * partition, records:[{offset, transactionId, payload, ts, messageId, traceId}], highWatermark, logStartOffset,
 * error?}]}} in request order. With {@code maxWaitMs} (at most {@code POP_MAX_TIMEOUT_MS}, as a Kafka Fetch's
 * {@code max.wait.ms}; a negative or non-integer value, or one beyond a long, is a 400) a read that found fewer than
 * {@code minBytes} (default 1; 0 = never park) parks like a long-polling pop until data arrives or the time is up.
 * Stateless.
 */
@Path("/api/v1/fetch")
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class FetchResource {
    static final int MAX_ENTRIES = 1024;
    static final int DEFAULT_MAX_BYTES = 1 << 20;
    static final long CALL_BUDGET = 64L << 20;
    static final int MAX_RECORDS = 10_000;

    @Inject OffsetReader reader;
    @Inject PayloadCipher cipher;
    @Inject ObjectMapper mapper;
    @Inject Callers callers;
    @Inject QueenConfig config;

    @Access(Access.Level.READ)
    @POST
    public Response fetch(byte[] body, @Context RoutingContext ctx) throws SQLException {
        JsonNode req = Bodies.requireObject(mapper, body);
        JsonNode entries = Bodies.requiredArray(req, "entries", "entries array is required");
        if (entries.size() > MAX_ENTRIES) {
            throw ApiException.badRequest("entries: at most " + MAX_ENTRIES + " entries per fetch");
        }
        // the same cap as a Kafka Fetch's max.wait.ms and a long-polling pop's timeout
        long maxWaitMs = Math.min(config.pop().maxTimeoutMs(), optionalNonNegative(req, "maxWaitMs", 0));
        long minBytes = optionalNonNegative(req, "minBytes", 1);
        int n = entries.size();
        String[] queues = new String[n];
        String[] partitions = new String[n];
        Long[] offsets = new Long[n];
        Integer[] maxBytes = new Integer[n];
        for (int i = 0; i < n; i++) {
            JsonNode e = entries.get(i);
            String at = "entries[" + i + "]";
            if (!e.isObject()) {
                throw ApiException.badRequest(at + " must be an object");
            }
            JsonNode q = e.get("queue");
            if (q == null || !q.isTextual()) {
                throw ApiException.badRequest(at + ".queue must be a string");
            }
            queues[i] = Names.requireName(q.textValue(), at + ".queue");
            JsonNode p = e.get("partition");
            if (p == null || p.isNull()) {
                partitions[i] = Names.DEFAULT_PARTITION;
            } else if (p.isTextual() || p.isIntegralNumber()) {
                // Kafka partitions are numbers: partition 3 is the Queen partition named "3"
                partitions[i] = Names.requireName(p.asText(), at + ".partition");
            } else {
                throw ApiException.badRequest(at + ".partition must be a string or an integer");
            }
            JsonNode o = e.get("offset");
            if (o == null || !o.isIntegralNumber() || !o.canConvertToLong()) {
                throw ApiException.badRequest(at + ".offset must be an integer");
            }
            if (o.longValue() < 0) {
                throw ApiException.badRequest(at + ".offset must be >= 0 (an absolute offset)");
            }
            offsets[i] = o.longValue();
            JsonNode mb = e.get("maxBytes");
            if (mb == null || mb.isNull()) {
                maxBytes[i] = DEFAULT_MAX_BYTES;
            } else if (!mb.isIntegralNumber() || !mb.canConvertToInt() || mb.intValue() < 1) {
                throw ApiException.badRequest(at + ".maxBytes must be a positive integer");
            } else {
                maxBytes[i] = mb.intValue();
            }
        }
        SocketAddress from = ctx.request().remoteAddress();
        List<ReadStore.FetchRow> rows = reader.read(callers.tenant(), from == null ? null : from.hostAddress(), queues,
                partitions, offsets, maxBytes, CALL_BUDGET, MAX_RECORDS, maxWaitMs, minBytes);
        ObjectNode out = mapper.createObjectNode();
        ArrayNode results = out.putArray("entries");
        ObjectNode[] byOrdinal = new ObjectNode[n];
        for (int i = 0; i < n; i++) {
            byOrdinal[i] = results.addObject();
            byOrdinal[i].put("queue", queues[i]);
            byOrdinal[i].put("partition", partitions[i]);
            byOrdinal[i].putArray("records");
        }
        for (ReadStore.FetchRow r : rows) {
            ObjectNode e = byOrdinal[r.ordinal()];
            e.put("highWatermark", r.highWatermark());
            e.put("logStartOffset", r.logStart());
            if (r.error() != null) {
                e.put("error", r.error());
            }
            if (r.segment() != null) {
                appendRecords((ArrayNode) e.get("records"), r.segment(), offsets[r.ordinal()]);
            }
        }
        return Json.ok(out);
    }

    private void appendRecords(ArrayNode records, ReadStore.Segment s, long from) {
        int start = (int) Math.max(0, from - s.baseOffset());
        int take = (int) (s.endOffset() - s.baseOffset() + 1) - start;
        List<Frame> frames = SegmentCodec.decode(s.blob(), start, take);
        String ts = Times.millis(s.createdAt());
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            if (f.isHole()) {
                continue;  // removed by compaction: the offset is a gap
            }
            ObjectNode r = records.addObject();
            r.put("offset", s.baseOffset() + start + i);
            r.put("transactionId", f.transactionId());
            Frame http = cipher.httpFrame(f);
            r.set("payload", MessageBrowser.payload(http.payload()));
            r.set("key", RecordEnvelope.keyNode(http.key()));
            r.put("ts", ts);
            r.put("messageId", f.messageId().toString());
            if (f.traceId() == null) {
                r.putNull("traceId");
            } else {
                r.put("traceId", f.traceId().toString());
            }
        }
    }

    private static long optionalNonNegative(JsonNode req, String field, long def) {
        JsonNode v = req.get(field);
        if (v == null || v.isNull()) {
            return def;
        }
        // a number beyond a long (1e40 parsed as an integer, 2^64) would be cut to its low bits by asLong
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw ApiException.badRequest(field + " must be a non-negative integer");
        }
        return v.asLong();
    }
}
