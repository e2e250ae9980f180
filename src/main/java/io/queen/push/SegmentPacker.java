package io.queen.push;

import io.queen.segment.Frame;
import io.queen.segment.SegmentBuilder;
import io.queen.segment.TransactionHash;
import java.util.ArrayList;
import java.util.List;

/**
 * Packs push items of ONE partition into a segment: the zstd blob of their frames and the 16-byte-stride hash
 * blob for the sidecar, both in item order. Shared by the fusion layer, {@link LogWriter}'s writes inside a
 * caller's transaction and the Kafka transaction staging. Stateless.
 */
public final class SegmentPacker {
    private SegmentPacker() {
    }

    public record Packed(int count, byte[] blob, byte[] hashes) {
    }

    /** The 16-byte transaction hash of each item, in item order. */
    public static List<byte[]> hashes(List<PushItem> items) {
        List<byte[]> out = new ArrayList<>(items.size());
        for (PushItem it : items) {
            out.add(TransactionHash.of(it.transactionIdUtf8()));
        }
        return out;
    }

    /** {@link #pack(List, List, int)} with the items' own transaction hashes. */
    public static Packed pack(List<PushItem> items, int zstdLevel) {
        return pack(items, hashes(items), zstdLevel);
    }

    /** {@code hashes.get(i)} is the 16-byte transaction hash of {@code items.get(i)}. */
    public static Packed pack(List<PushItem> items, List<byte[]> hashes, int zstdLevel) {
        long raw = 0;
        for (PushItem it : items) {
            // the exact raw size, so the builder never regrows (and recopies) its buffer
            raw += Frame.encodedSize(it.traceId() != null, it.spanId() != 0, it.transactionIdUtf8().length,
                    it.producerSubUtf8() == null ? -1 : it.producerSubUtf8().length,
                    it.key() == null ? -1 : it.key().length, it.payload().length);
        }
        SegmentBuilder b = SegmentBuilder.reusing((int) Math.min(raw, Integer.MAX_VALUE - 64));
        byte[] sidecar = new byte[16 * items.size()];
        for (int k = 0; k < items.size(); k++) {
            PushItem it = items.get(k);
            b.add(it.messageId(), it.traceId(), it.spanId(), it.traceFlags(), it.transactionIdUtf8(),
                    it.producerSubUtf8(), it.key(), it.encrypted(), it.kafkaRecord(), it.payload(), 0,
                    it.payload().length);
            System.arraycopy(hashes.get(k), 0, sidecar, 16 * k, 16);
        }
        return new Packed(items.size(), b.compressAndRelease(zstdLevel), sidecar);
    }
}
