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
