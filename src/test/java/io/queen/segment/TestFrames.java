package io.queen.segment;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/** Shared generators and a hand-rolled frame writer, independent of the code under test. */
final class TestFrames {

    private TestFrames() {}

    static final String[] ALPHABET_PIECES = {"a", "Z", "0", "-", " ", "é", "ж", "ключ", "鍵", "😀", "\u0000", "\uFFFD", "𝄞"};

    static UUID uuid(Random r) {
        return new UUID(r.nextLong(), r.nextLong());
    }

    static String string(Random r, int maxPieces) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(maxPieces + 1);
        for (int i = 0; i < n; i++) {
            sb.append(ALPHABET_PIECES[r.nextInt(ALPHABET_PIECES.length)]);
        }
        return sb.toString();
    }

    static byte[] bytes(Random r, int len) {
        byte[] b = new byte[len];
        r.nextBytes(b);
        return b;
    }

    static Frame random(Random r, int maxPayload) {
        return new Frame(
                uuid(r),
                r.nextBoolean() ? uuid(r) : null,
                string(r, 12),
                r.nextBoolean() ? string(r, 6) : null,
                r.nextBoolean(),
                bytes(r, r.nextInt(maxPayload + 1)),
                r.nextBoolean());
    }

    static List<Frame> randomList(Random r, int n, int maxPayload) {
        List<Frame> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(random(r, maxPayload));
        }
        return out;
    }

    static Frame simple(int i) {
        return new Frame(new UUID(0x0123_4567_89ab_cdefL, i), null, "txn-" + i, null, false,
                ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the spec'd layout with ByteBuffer, field by field, so tests can also write it wrongly on purpose. */
    static final class RawWriter {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        RawWriter frame(int flags, UUID id, UUID trace, byte[] txn, byte[] psub, byte[] payload) {
            ByteBuffer body = ByteBuffer.allocate(1 + 16 + (trace != null ? 16 : 0) + 2 + txn.length
                    + (psub != null ? 2 + psub.length : 0) + payload.length).order(ByteOrder.LITTLE_ENDIAN);
            body.put((byte) flags);
            body.putLong(Long.reverseBytes(id.getMostSignificantBits())).putLong(Long.reverseBytes(id.getLeastSignificantBits()));
            if (trace != null) {
                body.putLong(Long.reverseBytes(trace.getMostSignificantBits())).putLong(Long.reverseBytes(trace.getLeastSignificantBits()));
            }
            body.putShort((short) txn.length).put(txn);
            if (psub != null) {
                body.putShort((short) psub.length).put(psub);
            }
            body.put(payload);
            return lengthThenBody(body.capacity(), body.array());
        }

        /** A prefix claiming {@code bodyLen} followed by whatever bytes are given. */
        RawWriter lengthThenBody(long bodyLen, byte[] body) {
            raw(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) bodyLen).array());
            return raw(body);
        }

        RawWriter raw(byte[] b) {
            out.writeBytes(b);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
