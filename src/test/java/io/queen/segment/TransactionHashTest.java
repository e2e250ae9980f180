package io.queen.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.openhft.hashing.LongTupleHashFunction;
import org.junit.jupiter.api.Test;

class TransactionHashTest {

    /**
     * Canonical XXH3-128 (seed 0) digests, cross-checked with the reference C implementation
     * ({@code xxhsum -H2}, xxHash 0.8.1). Inputs cover the 0, 1-3, 9-16, 17-128, 129-240 and >240 byte paths.
     */
    @Test
    void knownVectors() {
        assertEquals("99aa06d3014798d86001c324468d497f", TransactionHash.hex(TransactionHash.of("")));
        assertEquals("a96faf705af16834e6c632b61e964e1f", TransactionHash.hex(TransactionHash.of("a")));
        assertEquals("06b05ab6733a618578af5f94892f3950", TransactionHash.hex(TransactionHash.of("abc")));
        assertEquals("5fc59e91858df38a385d713c6e23ac48", TransactionHash.hex(TransactionHash.of("tx-0001")));
        assertEquals("ceb3fbd8af7001ac76ba55acf0be061e", TransactionHash.hex(TransactionHash.of("x".repeat(16))));
        assertEquals("add9998d55ed3962e18dc405a95cc094", TransactionHash.hex(TransactionHash.of("x".repeat(100))));
        assertEquals("062dfbe359870f1a0f7bed28ebd8500d", TransactionHash.hex(TransactionHash.of("x".repeat(200))));
        assertEquals("50a1af5a5f2dcf01c0a4877b962cba82", TransactionHash.hex(TransactionHash.of("x".repeat(1000))));
        assertEquals("a4ad465b2327e6ac45d7a2df040774a2", TransactionHash.hex(TransactionHash.of("ключ-😀-鍵")));
    }

    @Test
    void bytesAreBigEndianHighHalfFirst() {
        byte[] h = TransactionHash.of(new byte[0]);
        assertEquals(16, h.length);
        ByteBuffer bb = ByteBuffer.wrap(h); // big-endian by default
        assertEquals(0x99aa06d3014798d8L, bb.getLong());
        assertEquals(0x6001c324468d497fL, bb.getLong());

        Random r = new Random(4);
        for (int i = 0; i < 1000; i++) {
            byte[] in = TestFrames.bytes(r, r.nextInt(300));
            long[] lib = LongTupleHashFunction.xx128().hashBytes(in); // {low64, high64}
            byte[] expected = ByteBuffer.allocate(16).putLong(lib[1]).putLong(lib[0]).array();
            assertArrayEquals(expected, TransactionHash.of(in));
        }
    }

    @Test
    void stringAndByteFormsAgree() {
        String id = "ключ-😀-鍵-" + 12345;
        assertArrayEquals(TransactionHash.of(id.getBytes(StandardCharsets.UTF_8)), TransactionHash.of(id));
        byte[] padded = ("..." + id + "!!").getBytes(StandardCharsets.UTF_8);
        int len = id.getBytes(StandardCharsets.UTF_8).length;
        assertArrayEquals(TransactionHash.of(id), TransactionHash.of(padded, 3, len));
        byte[] dst = new byte[40];
        TransactionHash.writeTo(padded, 3, len, dst, 20);
        assertArrayEquals(TransactionHash.of(id), java.util.Arrays.copyOfRange(dst, 20, 36));
        assertThrows(IllegalArgumentException.class, () -> TransactionHash.of("\uD800"));
        assertThrows(IndexOutOfBoundsException.class, () -> TransactionHash.writeTo(padded, 0, 1, dst, 30));
    }

    @Test
    void distinctIdsGetDistinctHashes() {
        Random r = new Random(8);
        Set<String> ids = new HashSet<>();
        Set<ByteBuffer> hashes = new HashSet<>();
        while (ids.size() < 100_000) {
            String id = switch (r.nextInt(3)) {
                case 0 -> "txn-" + r.nextInt(1_000_000);
                case 1 -> Long.toHexString(r.nextLong()) + "-" + Long.toHexString(r.nextLong());
                default -> TestFrames.string(r, 8);
            };
            if (ids.add(id)) {
                assertTrue(hashes.add(ByteBuffer.wrap(TransactionHash.of(id))), "collision for " + id);
            }
        }
        assertEquals(100_000, hashes.size());
    }

    @Test
    void hexAndConcat() {
        byte[] a = TransactionHash.of("a");
        byte[] b = TransactionHash.of("b");
        String hex = TransactionHash.hex(a);
        assertEquals(32, hex.length());
        assertEquals(hex, hex.toLowerCase());
        byte[] blob = TransactionHash.concat(List.of(a, b, a));
        assertEquals(48, blob.length);
        assertArrayEquals(b, java.util.Arrays.copyOfRange(blob, 16, 32));
        assertArrayEquals(a, java.util.Arrays.copyOfRange(blob, 32, 48));
        assertThrows(IllegalArgumentException.class, () -> TransactionHash.concat(List.of(a, new byte[15])));
        assertThrows(IllegalArgumentException.class, () -> TransactionHash.hex(new byte[17]));
    }
}
