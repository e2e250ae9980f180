package io.queen.pop;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.queen.segment.Frame;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Writes the pop response (API spec 3.4) straight from decoded frames: payload bytes go out as the raw JSON the
 * producer sent, never re-parsed. Stateless, thread-safe.
 */
final class PopResponseWriter {
    private static final JsonFactory JSON = new JsonFactory();
    /** Pop timestamps carry microseconds (spec 1.8), always true UTC. */
    static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

    record Delivered(PopStore.ClaimedSegment segment, List<Frame> frames) {
    }

    private PopResponseWriter() {
    }

    static byte[] write(String queue, String group, String leaseId, List<Delivered> delivered, int partitionsClaimed) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            PopStore.ClaimedSegment first = delivered.get(0).segment();
            g.writeStartObject();
            g.writeBooleanField("success", true);
            g.writeStringField("queue", queue);
            g.writeStringField("partition", first.partitionName());
            g.writeStringField("partitionId", first.partitionId().toString());
            g.writeStringField("leaseId", leaseId);
            g.writeStringField("consumerGroup", group);
            g.writeNumberField("partitionsClaimed", partitionsClaimed);
            g.writeArrayFieldStart("messages");
            for (Delivered d : delivered) {
                PopStore.ClaimedSegment s = d.segment();
                String createdAt = micros(s.createdAt());
                String pid = s.partitionId().toString();
                for (int i = 0; i < d.frames().size(); i++) {
                    Frame f = d.frames().get(i);
                    g.writeStartObject();
                    g.writeStringField("id", f.messageId().toString());
                    g.writeStringField("transactionId", f.transactionId());
                    g.writeStringField("partitionId", pid);
                    g.writeStringField("leaseId", leaseId);
                    g.writeFieldName("data");
                    g.writeRawValue(new String(f.payload(), StandardCharsets.UTF_8));
                    g.writeStringField("createdAt", createdAt);
                    if (f.traceId() == null) {
                        g.writeNullField("traceId");
                    } else {
                        g.writeStringField("traceId", f.traceId().toString());
                    }
                    if (f.producerSub() == null) {
                        g.writeNullField("producerSub");
                    } else {
                        g.writeStringField("producerSub", f.producerSub());
                    }
                    g.writeStringField("partition", s.partitionName());
                    g.writeStringField("consumerGroup", group);
                    g.writeStringField("queue", queue);
                    g.writeNumberField("offset", s.baseOffset() + s.startIdx() + i);
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static String micros(OffsetDateTime t) {
        return MICROS.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }
}
