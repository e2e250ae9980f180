package io.queen.pop;

import io.queen.api.JsonBytes;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import io.queen.tracing.TraceParent;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Writes the pop response (API spec 3.4) straight from decoded frames as bytes: payload bytes go out as the raw
 * JSON the producer sent, never re-parsed or re-encoded; the fields every message of a segment shares are encoded
 * once per segment. Stateless, thread-safe.
 */
final class PopResponseWriter {
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] ID_FIRST = JsonBytes.ascii("{\"id\":");
    private static final byte[] ID_NEXT = JsonBytes.ascii(",{\"id\":");
    private static final byte[] TXN = JsonBytes.ascii(",\"transactionId\":");
    private static final byte[] PRODUCER_SUB = JsonBytes.ascii(",\"producerSub\":");
    private static final byte[] TRACEPARENT = JsonBytes.ascii(",\"traceparent\":");
    private static final byte[] KEY = JsonBytes.ascii(",\"key\":");
    /** Pop timestamps carry microseconds (spec 1.8), always true UTC. */
    static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

    record Delivered(PopStore.ClaimedSegment segment, List<Frame> frames) {
    }

    private PopResponseWriter() {
    }

    /** A message's share of the answer, an upper bound for the usual fields (ids, names, timestamps). */
    static long bytes(Frame f) {
        if (f.isHole()) {
            return 0;
        }
        // a key is at most 65,535 bytes; as JSON it may grow by a third (base64) or more (escapes)
        return f.payload().length + f.transactionId().length() + 400L + (f.key() == null ? 0 : 2L * f.key().length);
    }

    static byte[] write(String queue, String group, String leaseId, List<Delivered> delivered, int partitionsClaimed) {
        int estimate = 256;
        for (Delivered d : delivered) {
            for (Frame f : d.frames()) {
                estimate += bytes(f);
            }
        }
        JsonBytes out = new JsonBytes(estimate);
        PopStore.ClaimedSegment first = delivered.get(0).segment();
        byte[] queueJson = JsonBytes.quoted(queue);
        byte[] groupJson = JsonBytes.quoted(group);
        byte[] leaseJson = JsonBytes.quoted(leaseId);
        out.raw("{\"success\":true,\"queue\":").raw(queueJson)
                .raw(",\"partition\":").string(first.partitionName())
                .raw(",\"partitionId\":").uuid(first.partitionId())
                .raw(",\"leaseId\":").raw(leaseJson)
                .raw(",\"consumerGroup\":").raw(groupJson)
                .raw(",\"partitionsClaimed\":").number(partitionsClaimed)
                .raw(",\"messages\":[");
        boolean firstMessage = true;
        for (Delivered d : delivered) {
            PopStore.ClaimedSegment s = d.segment();
            // fragments shared by every message of the segment, prepared once
            byte[] afterTxn = new JsonBytes(128).raw(",\"partitionId\":").uuid(s.partitionId())
                    .raw(",\"leaseId\":").raw(leaseJson).raw(",\"data\":").toByteArray();
            byte[] afterData = new JsonBytes(64).raw(",\"createdAt\":\"").raw(micros(s.createdAt()))
                    .raw("\",\"traceId\":").toByteArray();
            byte[] beforeOffset = new JsonBytes(128).raw(",\"partition\":").string(s.partitionName())
                    .raw(",\"consumerGroup\":").raw(groupJson).raw(",\"queue\":").raw(queueJson)
                    .raw(",\"offset\":").toByteArray();
            long offset = s.baseOffset() + s.startIdx();
            for (Frame f : d.frames()) {
                if (f.isHole()) {  // a record compaction removed: its offset is a gap
                    offset++;
                    continue;
                }
                out.raw(firstMessage ? ID_FIRST : ID_NEXT).uuid(f.messageId())
                        .raw(TXN).string(f.transactionId())
                        .raw(afterTxn).raw(f.payload().length == 0 ? NULL : f.payload())
                        .raw(afterData).uuid(f.traceId())
                        .raw(TRACEPARENT).string(f.spanId() == 0 ? null
                                : TraceParent.format(f.traceId(), f.spanId(), f.traceFlags()))
                        .raw(PRODUCER_SUB).string(f.producerSub())
                        .raw(KEY).raw(f.key() == null ? NULL : RecordEnvelope.keyJson(f.key()))
                        .raw(beforeOffset).number(offset++).raw('}');
                firstMessage = false;
            }
        }
        return out.raw("]}").toByteArray();
    }

    static String micros(OffsetDateTime t) {
        return MICROS.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }
}
