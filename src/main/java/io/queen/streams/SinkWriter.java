package io.queen.streams;

import jakarta.inject.Inject;
import io.queen.ack.AckStore;
import io.queen.push.LogWriter;
import io.queen.push.PushItem;
import io.queen.push.PushStore;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A cycle's sink push, inside the cycle's transaction, through {@link LogWriter.InTransaction}: encryption, one
 * segment per partition, and {@code queen.log_push_multi_v1} (auto-provisioning, partition rows locked in ascending
 * id, allocator, windowed dedup probe). As in {@code /push}, a transaction id already in
 * the partition's dedup window answers {@code duplicate} with the stored message's id and writes nothing; a repeat
 * inside one cycle collapses onto its first occurrence. Thread-safe (stateless).
 */
@ApplicationScoped
public class SinkWriter {
    @Inject LogWriter writer;
    @Inject AckStore ackStore;

    /** One item's verdict; {@code offset} is -1 for a duplicate. */
    public record Result(int index, boolean duplicate, PushItem item, UUID messageId, UUID partitionId, long offset) {
    }

    /** Results in item order; {@code log} writes on {@code c}, the cycle's transaction. */
    public List<Result> push(Connection c, LogWriter.InTransaction log, List<PushItem> items) throws SQLException {
        Result[] out = new Result[items.size()];
        if (items.isEmpty()) {
            return List.of();
        }
        List<PushItem> encrypted = writer.encrypted(log.tenant(), items);
        // per partition, in first-seen order; a repeated transaction id inside the cycle follows its first occurrence
        Map<String, List<PushItem>> byPartition = new LinkedHashMap<>();
        Map<String, Integer> firstByTxn = new HashMap<>();
        List<int[]> followers = new ArrayList<>();
        for (PushItem p : encrypted) {
            String lane = p.queue() + '\u001f' + p.partition();
            Integer first = firstByTxn.putIfAbsent(lane + '\u001f' + p.transactionId(), p.index());
            if (first != null) {
                followers.add(new int[] {p.index(), first});
                continue;
            }
            byPartition.computeIfAbsent(lane, k -> new ArrayList<>()).add(p);
        }
        List<List<PushItem>> pending = new ArrayList<>(byPartition.values());
        // a segment holding a duplicate writes nothing: answer the duplicates, push the survivors again (the
        // partition rows stay locked by this transaction, so the retry keeps the lock order)
        while (!pending.isEmpty()) {
            PushStore.SegmentResult[] res = log.write(pending);
            List<List<PushItem>> again = new ArrayList<>();
            for (int i = 0; i < res.length; i++) {
                List<PushItem> g = pending.get(i);
                PushStore.SegmentResult r = res[i];
                if (!r.duplicate()) {
                    for (int k = 0; k < g.size(); k++) {
                        PushItem p = g.get(k);
                        out[p.index()] = new Result(p.index(), false, p, p.messageId(), r.partitionId(),
                                r.baseOffset() + k);
                    }
                    continue;
                }
                Map<Integer, Long> dupOffset = new HashMap<>();
                for (int j = 0; j < r.dupIndexes().length; j++) {
                    dupOffset.put(r.dupIndexes()[j], r.dupOffsets()[j]);
                }
                List<PushItem> survivors = new ArrayList<>();
                for (int k = 0; k < g.size(); k++) {
                    PushItem p = g.get(k);
                    Long off = dupOffset.get(k);
                    if (off == null) {
                        survivors.add(p);
                    } else {
                        out[p.index()] = new Result(p.index(), true, p, originalId(c, r.partitionId(), off),
                                r.partitionId(), -1);
                    }
                }
                if (!survivors.isEmpty()) {
                    again.add(survivors);
                }
            }
            pending = again;
        }
        for (int[] f : followers) {
            Result first = out[f[1]];
            out[f[0]] = new Result(f[0], true, encrypted.get(f[0]), first.messageId(), first.partitionId(), -1);
        }
        return List.of(out);
    }

    /** The message id stored at a duplicate's offset (null when its segment is gone or compaction removed it). */
    private UUID originalId(Connection c, UUID pid, long off) throws SQLException {
        AckStore.Segment s = ackStore.segmentAt(c, pid, off);
        if (s == null || off < s.baseOffset() || off > s.endOffset()) {
            return null;
        }
        Frame f = SegmentCodec.decode(s.blob(), (int) (off - s.baseOffset()), 1).get(0);
        return f.isHole() ? null : f.messageId();
    }
}
