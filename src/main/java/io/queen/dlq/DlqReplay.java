package io.queen.dlq;

import io.queen.config.QueenConfig;
import io.queen.crypto.PayloadCipher;
import io.queen.envelope.RecordEnvelope;
import io.queen.push.LogWriter;
import io.queen.segment.Frame;
import io.queen.segment.KafkaTxnId;
import io.queen.segment.SegmentBuilder;
import io.queen.segment.SegmentCodec;
import io.queen.segment.TransactionHash;
import io.queen.segment.Uuid7;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Moves one dead letter back into the log (both replay routes). The frame (fresh UUIDv7 message id, the
 * deterministic transaction id {@code dlq:<row id>}, the snapshot payload, key, trace id and producer sub) and its
 * 16-byte hash are built here; {@code queen.log_dlq_move_v1} then locks the DLQ row, pushes through the normal
 * allocator and deletes the row in ONE transaction, so concurrent replays of a row move it exactly once.
 * A replay does not go through push fusion: {@link LogWriter#moved} counts it and tells the commit listeners
 * (parked pops).
 * Thread-safe (stateless apart from the injected beans).
 */
@ApplicationScoped
public class DlqReplay {
    public enum Verdict { MOVED, DUPLICATE, GONE }

    /** {@code messageId}: the new message (moved) or the one the replay collided with (duplicate). */
    public record Result(Verdict verdict, DlqStore.DeadLetter row, String queue, String partition, UUID partitionId,
            UUID messageId, String transactionId, long offset) {
    }

    private final DlqStore store;
    private final int zstdLevel;
    private final LogWriter writer;
    private final PayloadCipher cipher;

    DlqReplay(DlqStore store, QueenConfig config, LogWriter writer, PayloadCipher cipher) {
        this.cipher = cipher;
        this.store = store;
        this.zstdLevel = config.zstdLevel();
        this.writer = writer;
    }

    /** Replays row {@code id} into (queue, partition); null destination parts default to the source. */
    public Result replay(UUID tenant, UUID id, String queue, String partition) throws SQLException {
        DlqStore.DeadLetter row = store.get(tenant, id);
        if (row == null) {
            return new Result(Verdict.GONE, null, queue, partition, null, null, null, -1);
        }
        String q = queue == null ? row.queue() : queue;
        String p = partition == null ? row.partition() : partition;
        String txn = "dlq:" + row.id();
        UUID messageId = Uuid7.next();
        byte[] payload = (row.payload() == null ? "null" : row.payload()).getBytes(StandardCharsets.UTF_8);
        SegmentBuilder b = new SegmentBuilder(payload.length + 128);
        // a snapshot of an encrypted queue's message is still its envelope: it goes back with frame flag 4
        boolean encrypted = PayloadCipher.isEnvelope(DlqJson.payload(row.payload()));
        byte[] record = kafkaRecord(row, payload, encrypted);
        // an HTTP message's key goes back with it (encrypted with the payload); a Kafka record's is in its payload
        byte[] key = record == null ? store.key(id) : null;
        b.add(new Frame(messageId, row.traceId(), txn, row.producerSub(), encrypted, record == null ? payload : record,
                record != null, 0, (byte) 0, key));
        DlqStore.Move m = store.move(tenant, id, q, p, TransactionHash.of(txn), b.compress(zstdLevel));
        switch (m.verdict()) {
            case "moved" -> {
                // a message written into the log: counted as a pushed one (the replay is no push request)
                writer.moved(tenant, q, p, m.partitionId(), m.baseOffset());
                return new Result(Verdict.MOVED, row, q, p, m.partitionId(), messageId, txn, m.baseOffset());
            }
            case "duplicate" -> {
                return new Result(Verdict.DUPLICATE, row, q, p, m.partitionId(),
                        originalMessageId(m.partitionId(), m.dupOffset()), txn, m.dupOffset());
            }
            default -> {
                return new Result(Verdict.GONE, row, q, p, null, null, txn, -1);
            }
        }
    }

    /**
     * A dead Kafka record goes back as a Kafka record (frame flag 8, encrypted again where it was), so Kafka
     * consumers read its key, headers and value rather than its JSON snapshot; null for any other dead letter, or
     * a snapshot this broker cannot read (encrypted without the key here): that one goes back as JSON.
     */
    private byte[] kafkaRecord(DlqStore.DeadLetter row, byte[] payload, boolean encrypted) {
        if (row.transactionId() == null || !row.transactionId().startsWith(KafkaTxnId.PREFIX)) {
            return null;
        }
        try {
            byte[] binary = RecordEnvelope.fromDeadLetter(encrypted ? cipher.decrypt(payload) : payload);
            return binary == null || !encrypted ? binary : cipher.encrypt(binary);
        } catch (RuntimeException noKey) {
            return null;
        }
    }

    private UUID originalMessageId(UUID pid, long offset) throws SQLException {
        DlqStore.Segment s = store.segmentAt(pid, offset);
        if (s == null || offset > s.endOffset()) {
            return new UUID(0, 0);
        }
        return SegmentCodec.decode(s.blob(), (int) (offset - s.baseOffset()), 1).get(0).messageId();
    }
}
