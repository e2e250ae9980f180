package io.queen.browse;

import io.queen.tracing.TraceParent;
import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.queue.Names;
import io.queen.crypto.PayloadCipher;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import io.queen.segment.KafkaTxnId;
import io.queen.segment.SegmentCodec;
import io.queen.segment.TransactionHash;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Message browse (API spec 4.2) and one message by address (4.3), decoded from segments in the broker. Reads
 * never lease and never move a cursor. Status is derived from the cursors: dead_letter when a DLQ row exists for
 * the address; with a queue-mode cursor, completed (offset &lt;= committed) / processing (inside the live leased
 * span) / pending; with named groups only, completed when every group's cursor is past the offset. Thread-safe
 * (stateless).
 */
@ApplicationScoped
public class MessageBrowser {
    /** The fallback scan for a message whose hash was purged looks at no more segments than this. */
    static final int FALLBACK_SEGMENTS = 5000;
    private static final int FALLBACK_PAGE = 100;

    @Inject ReadStore store;
    @Inject PayloadCipher cipher;

    /** Filters of the browse route; null = no filter. */
    public record Filter(String queue, String partition, String namespace, String task, String status, Instant from,
            Instant to, int limit, int offset) {
    }

    /** Cursors and dead letters of one partition. */
    private record Consumption(List<ReadStore.Cursor> cursors, Map<Long, ReadStore.DeadLetterRef> dead) {
        ReadStore.Cursor queueMode() {
            for (ReadStore.Cursor c : cursors) {
                if (c.group().equals(Names.QUEUE_MODE)) {
                    return c;
                }
            }
            return null;
        }

        int busGroups() {
            int n = 0;
            for (ReadStore.Cursor c : cursors) {
                n += c.group().equals(Names.QUEUE_MODE) ? 0 : 1;
            }
            return n;
        }

        String status(long offset) {
            if (dead.containsKey(offset)) {
                return "dead_letter";
            }
            ReadStore.Cursor q = queueMode();
            if (q != null) {
                return cursorStatus(q, offset);
            }
            if (cursors.isEmpty()) {
                return "pending";
            }
            boolean all = true;
            boolean leased = false;
            for (ReadStore.Cursor c : cursors) {
                String s = cursorStatus(c, offset);
                all &= s.equals("completed");
                leased |= s.equals("processing");
            }
            return all ? "completed" : leased ? "processing" : "pending";
        }

        static String cursorStatus(ReadStore.Cursor c, long offset) {
            if (offset <= c.committed()) {
                return "completed";
            }
            if (c.leasedUpTo() != null && offset <= c.leasedUpTo()) {
                return "processing";
            }
            return "pending";
        }

        OffsetDateTime leaseExpiresAt(long offset) {
            for (ReadStore.Cursor c : cursors) {
                if (c.leasedUpTo() != null && offset > c.committed() && offset <= c.leasedUpTo()) {
                    return c.leaseExpiresAt();
                }
            }
            return null;
        }
    }

    public ObjectNode list(UUID tenant, Filter f) throws SQLException {
        int want = f.offset() + f.limit();
        // without a status filter every decoded frame counts, so a page needs at most `want` segments
        int maxSegments = f.status() == null ? Math.min(FALLBACK_SEGMENTS, Math.max(1, want)) : FALLBACK_SEGMENTS;
        List<ReadStore.BrowseSegment> segs = store.browse(tenant, f.queue(), f.partition(), f.namespace(), f.task(),
                f.from(), f.to(), maxSegments, maxSegments);
        Map<UUID, Consumption> consumption = consumption(segs.stream().map(ReadStore.BrowseSegment::partitionId)
                .distinct().toList());
        ObjectNode out = Json.MAPPER.createObjectNode();
        ArrayNode messages = out.putArray("messages");
        int skipped = 0;
        boolean hasQueueMode = false;
        Set<String> busGroups = new LinkedHashSet<>();
        for (Consumption c : consumption.values()) {
            hasQueueMode |= c.queueMode() != null;
            c.cursors().stream().map(ReadStore.Cursor::group).filter(g -> !g.equals(Names.QUEUE_MODE))
                    .forEach(busGroups::add);
        }
        outer:
        for (ReadStore.BrowseSegment bs : segs) {
            ReadStore.Segment s = bs.segment();
            List<Frame> frames = SegmentCodec.decode(s.blob());
            Consumption c = consumption.get(bs.partitionId());
            for (int i = frames.size() - 1; i >= 0; i--) {
                if (frames.get(i).isHole()) {
                    continue;  // removed by compaction
                }
                long offset = s.baseOffset() + i;
                String status = c.status(offset);
                if (f.status() != null && !f.status().equals(status)) {
                    continue;
                }
                if (skipped < f.offset()) {
                    skipped++;
                    continue;
                }
                if (messages.size() >= f.limit()) {
                    break outer;
                }
                Frame fr = frames.get(i);
                ObjectNode m = messages.addObject();
                putAddress(m, fr, bs, offset, status);
                ReadStore.Cursor q = c.queueMode();
                if (q == null) {
                    m.putNull("queueStatus");
                } else {
                    m.put("queueStatus", c.dead().containsKey(offset) ? "dead_letter" : Consumption.cursorStatus(q, offset));
                }
                ObjectNode bus = m.putObject("busStatus");
                bus.put("consumedBy", c.cursors().stream()
                        .filter(x -> !x.group().equals(Names.QUEUE_MODE) && offset <= x.committed()).count());
                bus.put("totalGroups", c.busGroups());
                putTrace(m, fr);
                putText(m, "producerSub", fr.producerSub());
                m.put("queuePriority", bs.priority());
                m.put("createdAt", Times.millis(s.createdAt()));
                putText(m, "leaseExpiresAt", Times.millis(c.leaseExpiresAt(offset)));
                // a Kafka record's key and headers, so the list can show them without opening each message
                ObjectNode kafka = kafka(fr);
                if (kafka != null) {
                    m.set("kafka", kafka);
                }
                putKey(m, fr, kafka);
            }
        }
        ObjectNode mode = out.putObject("mode");
        mode.put("hasQueueMode", hasQueueMode);
        mode.put("busGroupsCount", busGroups.size());
        mode.put("type", modeType(hasQueueMode, busGroups.size()));
        return out;
    }

    /** One message by (partitionId, transactionId), or null when it cannot be found. */
    public ObjectNode one(UUID tenant, UUID pid, String transactionId) throws SQLException {
        ReadStore.PartitionContext ctx = store.context(tenant, pid);
        if (ctx == null) {
            return null;
        }
        Located found = locate(pid, transactionId);
        if (found == null) {
            return null;
        }
        Consumption c = consumption(List.of(pid)).get(pid);
        long offset = found.offset();
        Frame fr = found.frame();
        ObjectNode m = Json.MAPPER.createObjectNode();
        putAddress(m, fr, ctx, offset, c.status(offset));
        JsonNode data = payload(cipher.httpPayload(fr));
        m.set("payload", data);
        m.set("data", data);
        m.put("isEncrypted", fr.encrypted());
        putKey(m, fr, kafka(fr));
        putTrace(m, fr);
        putText(m, "producerSub", fr.producerSub());
        m.put("createdAt", Times.millis(found.createdAt()));
        ReadStore.DeadLetterRef dead = c.dead().get(offset);
        putText(m, "errorMessage", dead == null ? null : dead.error() == null ? "Retries exhausted" : dead.error());
        m.put("retryCount", dead == null ? 0 : dead.retryCount());
        putText(m, "leaseExpiresAt", Times.millis(c.leaseExpiresAt(offset)));
        ObjectNode qc = m.putObject("queueConfig");
        qc.put("leaseTime", ctx.leaseTime());
        qc.put("retryLimit", ctx.retryLimit());
        qc.put("retryDelay", ctx.retryDelay());
        qc.put("ttl", ctx.ttl());
        qc.put("priority", ctx.priority());
        ObjectNode mode = m.putObject("mode");
        boolean hasQueueMode = c.queueMode() != null;
        mode.put("hasQueueMode", hasQueueMode);
        mode.put("busGroupsCount", c.busGroups());
        mode.put("consumedByGroups", c.cursors().stream().filter(x -> offset <= x.committed()).count());
        mode.put("type", modeType(hasQueueMode, c.busGroups()));
        ArrayNode groups = m.putArray("consumerGroups");
        for (ReadStore.Cursor x : c.cursors()) {
            ObjectNode g = groups.addObject();
            g.put("name", x.group());
            g.put("consumed", offset <= x.committed());
            boolean leased = x.leasedUpTo() != null && offset > x.committed() && offset <= x.leasedUpTo();
            putText(g, "leaseExpiresAt", leased ? Times.millis(x.leaseExpiresAt()) : null);
        }
        return m;
    }

    /**
     * Whether (partitionId, transactionId) names a message of the tenant that can still be found (the sidecar, or
     * the bounded fallback scan once the hash is purged).
     */
    public boolean exists(UUID tenant, UUID pid, String transactionId) throws SQLException {
        return store.context(tenant, pid) != null && locate(pid, transactionId) != null;
    }

    /** Where a message of the tenant is: its partition's context and its offset. */
    public record Position(ReadStore.PartitionContext partition, long offset) {
    }

    /** The position of (partitionId, transactionId) in the tenant's log, or null when no such message is found. */
    public Position position(UUID tenant, UUID pid, String transactionId) throws SQLException {
        ReadStore.PartitionContext ctx = store.context(tenant, pid);
        Located found = ctx == null ? null : locate(pid, transactionId);
        return found == null ? null : new Position(ctx, found.offset());
    }

    /** The (decrypted) payload of a message the caller already scoped to its tenant, or null once it is gone. */
    public JsonNode payloadOf(UUID pid, String transactionId) throws SQLException {
        Located found = locate(pid, transactionId);
        return found == null ? null : payload(cipher.httpPayload(found.frame()));
    }

    private record Located(long offset, Frame frame, OffsetDateTime createdAt) {
    }

    /**
     * transactionId -> 16-byte hash -> sidecar offset -> covering segment -> frame. When the hash row was purged
     * (or the frame there is not that id), a bounded newest-first scan of at most {@value #FALLBACK_SEGMENTS}
     * segments looks for the id in the frames themselves.
     */
    private Located locate(UUID pid, String transactionId) throws SQLException {
        Long off = store.locate(pid, TransactionHash.of(transactionId));
        if (off != null) {
            ReadStore.Segment s = store.segmentAt(pid, off);
            if (s != null && off <= s.endOffset()) {
                Frame fr = SegmentCodec.decode(s.blob(), (int) (off - s.baseOffset()), 1).get(0);
                if (!fr.isHole() && fr.transactionId().equals(transactionId)) {
                    return new Located(off, fr, s.createdAt());
                }
            }
        }
        long before = Long.MAX_VALUE;
        int scanned = 0;
        while (scanned < FALLBACK_SEGMENTS) {
            List<ReadStore.Segment> page = store.segmentsBefore(pid, before,
                    Math.min(FALLBACK_PAGE, FALLBACK_SEGMENTS - scanned));
            if (page.isEmpty()) {
                return null;
            }
            for (ReadStore.Segment s : page) {
                List<Frame> frames = SegmentCodec.decode(s.blob());
                for (int i = frames.size() - 1; i >= 0; i--) {
                    if (!frames.get(i).isHole() && frames.get(i).transactionId().equals(transactionId)) {
                        return new Located(s.baseOffset() + i, frames.get(i), s.createdAt());
                    }
                }
                before = s.baseOffset();
            }
            scanned += page.size();
        }
        return null;
    }

    private Map<UUID, Consumption> consumption(List<UUID> pids) throws SQLException {
        Map<UUID, Consumption> out = new HashMap<>();
        if (pids.isEmpty()) {
            return out;
        }
        for (UUID p : pids) {
            out.put(p, new Consumption(new ArrayList<>(), new HashMap<>()));
        }
        for (ReadStore.Cursor c : store.cursors(pids)) {
            out.get(c.partitionId()).cursors().add(c);
        }
        for (ReadStore.DeadLetterRef d : store.deadLetters(pids)) {
            out.get(d.partitionId()).dead().put(d.offset(), d);
        }
        return out;
    }

    static JsonNode payload(byte[] bytes) {
        try {
            JsonNode n = Json.MAPPER.readTree(bytes);
            return n == null ? Json.MAPPER.nullNode() : n;
        } catch (IOException e) {
            // payload bytes are kept as the client sent them; if they are not JSON, show them as a string
            return Json.MAPPER.getNodeFactory().textNode(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    private static String modeType(boolean queueMode, int busGroups) {
        return queueMode ? (busGroups > 0 ? "hybrid" : "queue") : (busGroups > 0 ? "bus" : "none");
    }

    /** The fields that say which message this is and where it stands, alike in the list and in one message. */
    private static void putAddress(ObjectNode m, Frame fr, ReadStore.Place place, long offset, String status) {
        m.put("id", fr.messageId().toString());
        m.put("transactionId", fr.transactionId());
        m.put("partitionId", place.partitionId().toString());
        m.put("offset", offset);
        m.put("queuePath", place.queue() + "/" + place.partition());
        m.put("queue", place.queue());
        m.put("partition", place.partition());
        m.put("namespace", nz(place.namespace()));
        m.put("task", nz(place.task()));
        m.put("status", status);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static void putText(ObjectNode n, String k, String v) {
        if (v == null) {
            n.putNull(k);
        } else {
            n.put(k, v);
        }
    }

    private static void putUuid(ObjectNode n, String k, UUID v) {
        putText(n, k, v == null ? null : v.toString());
    }

    /** A Kafka record's key and headers ({@link RecordEnvelope#keyAndHeaders}), null for any other message. */
    private ObjectNode kafka(Frame fr) {
        return fr.transactionId().startsWith(KafkaTxnId.PREFIX)
                ? RecordEnvelope.keyAndHeaders(fr, cipher.plaintext(fr)) : null;
    }

    /**
     * The message's key for log compaction: a Kafka record's key as its envelope holds it ({@code kafka}), else the
     * key an HTTP producer gave (decrypted), null without one.
     */
    private void putKey(ObjectNode m, Frame fr, ObjectNode kafka) {
        m.set("key", kafka != null ? kafka.get("key") : RecordEnvelope.keyNode(cipher.key(fr)));
    }

    /** The message's trace id and, when it carries its producer's span, its W3C {@code traceparent}. */
    private static void putTrace(ObjectNode m, Frame fr) {
        putUuid(m, "traceId", fr.traceId());
        m.put("traceparent", fr.spanId() == 0 ? null : TraceParent.format(fr.traceId(), fr.spanId(), fr.traceFlags()));
    }
}
