package io.queen.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.segment.TransactionHash;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DedupIndexTest {
    @Test
    void fingerprintSetMatchesAReferenceMultisetUnderRandomAddsAndRemoves() {
        FingerprintSet set = new FingerprintSet(4);
        Map<Long, Integer> ref = new HashMap<>();
        Random rnd = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            long k = rnd.nextInt(5000);
            long fp = FingerprintSet.of(k * 0x9E3779B97F4A7C15L);   // k = 0 exercises the folded fingerprint 0
            if (rnd.nextInt(3) > 0) {
                set.add(fp);
                ref.merge(k, 1, Integer::sum);
            } else {
                boolean present = ref.getOrDefault(k, 0) > 0;
                assertEquals(present, set.remove(fp));
                if (present) {
                    ref.merge(k, -1, Integer::sum);
                }
            }
        }
        assertEquals(ref.values().stream().mapToInt(Integer::intValue).sum(), set.size(), "occurrences held");
        for (long k = 0; k < 5000; k++) {
            assertEquals(ref.getOrDefault(k, 0) > 0, set.contains(FingerprintSet.of(k * 0x9E3779B97F4A7C15L)), "key " + k);
        }
    }

    @Test
    void aSharedFingerprintWithholdsTheVouchingNeverGrantsIt() {
        byte[] known = new byte[16];
        byte[] twin = new byte[16];   // same first 8 bytes, different hash: must count as possibly known
        for (int i = 0; i < 16; i++) {
            known[i] = (byte) (i + 1);
            twin[i] = (byte) (i < 8 ? i + 1 : 100 + i);
        }
        DedupIndex idx = new DedupIndex();
        idx.startAt(java.util.UUID.randomUUID(), -1, 60);
        assertTrue(idx.append(0, 0, 1_000, known, 60));
        assertEquals(-1, idx.vouchFor(twin));
        assertEquals(0, idx.vouchFor(new byte[16]), "an all-zero hash is not confused with an empty slot");
        assertTrue(idx.append(1, 1, 1_001, new byte[16], 60));
        assertEquals(-1, idx.vouchFor(new byte[16]));
        assertEquals(1, idx.vouchFor(hashes("fresh")));
    }

    static byte[] hashes(String... txns) {
        byte[] out = new byte[16 * txns.length];
        for (int i = 0; i < txns.length; i++) {
            System.arraycopy(TransactionHash.of(txns[i]), 0, out, 16 * i, 16);
        }
        return out;
    }

    @Test
    void vouchesOnlyForWhatItCoversAndNeverForAKnownHash() {
        DedupIndex idx = new DedupIndex();
        assertEquals(-1, idx.vouchFor(hashes("a")), "cold: no vouching");
        idx.startAt(java.util.UUID.randomUUID(), -1, 60);
        assertTrue(idx.append(0, 1, 1_000, hashes("a", "b"), 60));
        assertEquals(1, idx.vouchFor(hashes("c")));
        assertEquals(-1, idx.vouchFor(hashes("c", "b")), "a local hit sends -1: SQL decides");
        assertFalse(idx.append(5, 5, 2_000, hashes("z"), 60), "a gap empties the index");
        assertEquals(-1, idx.verified());
        assertEquals(0, idx.size());
    }

    @Test
    void expiresByTheWindowButKeepsARepeatAcceptedLater() {
        DedupIndex idx = new DedupIndex();
        idx.startAt(java.util.UUID.randomUUID(), -1, 10);
        idx.append(0, 0, 0, hashes("x"), 10);
        idx.append(1, 1, 5_000, hashes("y"), 10);
        idx.append(2, 2, 11_000, hashes("x"), 10);   // x accepted again beyond the window; the first x expires
        assertEquals(-1, idx.vouchFor(hashes("x")), "the newer x must survive the expiry of the older one");
        assertEquals(2, idx.vouchFor(hashes("q")));
        idx.append(3, 3, 30_000, hashes("w"), 10);
        assertEquals(3, idx.vouchFor(hashes("x")), "all older spans expired");
    }

    @Test
    void aResetIndexForgetsEverythingAndCanBeRebuilt() {
        DedupIndex idx = new DedupIndex();
        idx.startAt(java.util.UUID.randomUUID(), -1, 60);
        for (int i = 0; i < 10_000; i++) {
            assertTrue(idx.append(i, i, 1_000 + i, hashes("t" + i), 60));
        }
        assertEquals(10_000, idx.size());
        idx.reset();
        assertEquals(0, idx.size());
        assertFalse(idx.valid());
        assertEquals(-1, idx.vouchFor(hashes("t1")), "a reset index vouches for nothing");
        idx.startAt(idx.partitionId(), 20_000, 60);
        assertEquals(20_000, idx.vouchFor(hashes("t1")), "rebuilt: the old fingerprints are gone");
        assertTrue(idx.append(20_001, 20_001, 50_000, hashes("t1"), 60));
        assertEquals(-1, idx.vouchFor(hashes("t1")));
        assertEquals(1, idx.size());
    }

    static byte[][] utf8(String... txns) {
        byte[][] out = new byte[txns.length][];
        for (int i = 0; i < txns.length; i++) {
            out[i] = txns[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        return out;
    }

    static String[] sequenced(long producer, int epoch, int from, int count) {
        String[] out = new String[count];
        for (int i = 0; i < count; i++) {
            out[i] = io.queen.segment.KafkaTxnId.of(producer, (short) epoch, from + i);
        }
        return out;
    }

    /** An index covering an empty partition with a 60 s window. */
    static DedupIndex started() {
        DedupIndex idx = new DedupIndex();
        idx.startAt(java.util.UUID.randomUUID(), -1, 60);
        return idx;
    }

    /** Appends a span of these ids after what the index verified; its new verified offset. */
    static long append(DedupIndex idx, long createdAt, String... txns) {
        long base = idx.verified() + 1;
        assertTrue(idx.append(base, base + txns.length - 1, createdAt, hashes(txns), utf8(txns), 60));
        return idx.verified();
    }

    static long vouch(DedupIndex idx, String... txns) {
        return idx.vouchFor(hashes(txns), utf8(txns));
    }

    @Test
    void aProducersSequencesFoldIntoOneRangeAndARetryOfAnyOfThemIsKnown() {
        DedupIndex idx = started();
        for (int b = 0; b < 100; b++) {
            append(idx, 1_000 + b, sequenced(7, 0, 100 * b, 100));
        }
        assertEquals(1, idx.size(), "10,000 records of one producer epoch: one range");
        assertEquals(1, idx.ranges());
        assertEquals(-1, vouch(idx, sequenced(7, 0, 4_950, 100)), "a retried batch");
        assertEquals(-1, vouch(idx, sequenced(7, 0, 9_999, 2)), "a batch overlapping the newest sequence");
        assertEquals(9_999, vouch(idx, sequenced(7, 0, 10_000, 100)), "the next batch");
        assertEquals(9_999, vouch(idx, sequenced(7, 1, 0, 100)), "the next epoch starts again at 0");
        assertEquals(9_999, vouch(idx, sequenced(8, 0, 0, 100)), "another producer");
        assertEquals(-1, idx.vouchFor(hashes(sequenced(8, 0, 0, 1))), "ids known by hash only: no vouching");
        assertEquals(-1, vouch(idx, "kafka:7:0:17"), "the same id from anywhere else");
        assertEquals(9_999, vouch(idx, "kafka:7:0:017", "kafka:7:00:17", "kafka:+7:0:17", "kafka:7:0:17:1"),
                "other ids that read as the same numbers");
        append(idx, 2_000, "kafka:7:0:017", "http-1");
        assertEquals(-1, vouch(idx, "kafka:7:0:017"), "kept as a fingerprint");
        assertEquals(3, idx.size());
    }

    @Test
    void aRetryOutOfOrderOpensARangeAndEveryRangeIsLookedUp() {
        DedupIndex idx = started();
        append(idx, 1_000, sequenced(7, 0, 0, 10));
        append(idx, 1_001, sequenced(7, 0, 20, 10));
        append(idx, 1_002, sequenced(7, 0, 10, 10));
        assertEquals(3, idx.size());
        for (int seq : new int[] {0, 9, 10, 19, 20, 29}) {
            assertEquals(-1, vouch(idx, sequenced(7, 0, seq, 1)), "sequence " + seq);
        }
        assertEquals(idx.verified(), vouch(idx, sequenced(7, 0, 30, 1)));
    }

    @Test
    void scatteredSequencesPastTheCapAreKeptAsFingerprints() {
        DedupIndex idx = started();
        int n = 10 * DedupIndex.MAX_RANGES_PER_PRODUCER;
        for (int i = 0; i < n; i++) {
            append(idx, 1_000 + i, sequenced(7, 0, 2 * i, 1));   // every other sequence: no two runs join
        }
        assertEquals(n, idx.size());
        assertEquals(DedupIndex.MAX_RANGES_PER_PRODUCER, idx.ranges(), "the cap's ranges, the rest fingerprints");
        for (int i = 0; i < n; i++) {
            assertEquals(-1, vouch(idx, sequenced(7, 0, 2 * i, 1)), "sequence " + 2 * i);
            assertEquals(idx.verified(), vouch(idx, sequenced(7, 0, 2 * i + 1, 1)), "sequence " + (2 * i + 1));
        }
    }

    @Test
    void idsReadFromTheSidecarAreLookedUpByHashForKafkaRecordsToo() {
        DedupIndex idx = started();
        assertTrue(idx.append(0, 9, 1_000, hashes(sequenced(7, 0, 0, 10)), 60), "a span another broker wrote");
        append(idx, 1_001, sequenced(7, 0, 10, 10));
        assertEquals(-1, vouch(idx, sequenced(7, 0, 5, 1)), "known by its hash");
        assertEquals(-1, vouch(idx, sequenced(7, 0, 15, 1)), "known by its range");
        assertEquals(19, vouch(idx, sequenced(7, 0, 20, 1)));
    }

    @Test
    void rangesExpireOnceTheirNewestRecordLeftTheWindow() {
        DedupIndex idx = started();
        append(idx, 0, sequenced(7, 0, 0, 10));
        append(idx, 30_000, sequenced(8, 0, 0, 10));
        append(idx, 50_000, sequenced(7, 0, 10, 10));   // extends producer 7's range: its newest is now at 50 s
        append(idx, 100_000, "http-1");
        assertEquals(-1, vouch(idx, sequenced(7, 0, 0, 1)), "kept while its newest record is inside the window");
        assertEquals(idx.verified(), vouch(idx, sequenced(8, 0, 0, 1)), "producer 8's only range left the window");
        append(idx, 120_000, "http-2");
        assertEquals(idx.verified(), vouch(idx, sequenced(7, 0, 0, 1)));
        assertEquals(2, idx.size(), "the two fingerprints are all that is left");
    }

    @Test
    void aGrownWindowInvalidatesTheIndex() {
        DedupIndex idx = new DedupIndex();
        idx.startAt(java.util.UUID.randomUUID(), -1, 10);
        idx.append(0, 0, 0, hashes("x"), 10);
        assertFalse(idx.append(1, 1, 1, hashes("y"), 20));
        assertEquals(-1, idx.vouchFor(hashes("z")));
    }

    @Test
    void theDefaultBudgetFitsInAQuarterOfTheHeapAndAConfiguredOneIsKept() {
        assertEquals(12_000_000, PushFusion.dedupBudget(OptionalLong.empty(), 6L << 30));
        assertEquals((256L << 20) / 4 / 40, PushFusion.dedupBudget(OptionalLong.empty(), 256L << 20));
        assertEquals(500, PushFusion.dedupBudget(OptionalLong.of(500), 256L << 20));
        assertEquals(50_000_000, PushFusion.dedupBudget(OptionalLong.of(50_000_000), 256L << 20),
                "an explicit budget is the operator's call");
    }
}
