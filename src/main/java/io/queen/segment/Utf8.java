package io.queen.segment;

import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 helpers for the string fields of a frame.
 *
 * <p>Invariant: {@link #encodedLength} and {@link #encode} accept only well-formed UTF-16 (an unpaired
 * surrogate is rejected rather than replaced with {@code '?'} as {@link String#getBytes} would do), and
 * {@link #isWellFormed} accepts exactly the byte sequences of Unicode Table 3-7. Together they make a
 * string survive encode/decode unchanged. Stateless, thread-safe.
 */
final class Utf8 {

    private Utf8() {}

    /** UTF-8 length of {@code s}; throws {@link IllegalArgumentException} on an unpaired surrogate. */
    static int encodedLength(String s) {
        int n = s.length();
        int len = n; // one byte per char, plus extras below
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                len += 1;
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    len += 2; // two chars become four bytes
                    i++;
                } else {
                    throw new IllegalArgumentException("unpaired surrogate at index " + i);
                }
            } else {
                len += 2;
            }
        }
        return len;
    }

    /**
     * Writes {@code s} as UTF-8 at {@code dst[off]}; returns the offset after the last byte written.
     * The caller has sized {@code dst} with {@link #encodedLength} (which also validated {@code s}).
     */
    static int encode(String s, byte[] dst, int off) {
        int n = s.length();
        int p = off;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                dst[p++] = (byte) c;
            } else if (c < 0x800) {
                dst[p++] = (byte) (0xC0 | (c >> 6));
                dst[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c)) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                dst[p++] = (byte) (0xF0 | (cp >> 18));
                dst[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                dst[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                dst[p++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                dst[p++] = (byte) (0xE0 | (c >> 12));
                dst[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                dst[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return p;
    }

    /** {@code s} as strict UTF-8 bytes; throws {@link IllegalArgumentException} on an unpaired surrogate. */
    static byte[] bytes(String s) {
        byte[] out = new byte[encodedLength(s)];
        encode(s, out, 0);
        return out;
    }

    /** True when {@code b[off, off+len)} is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF). */
    static boolean isWellFormed(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        while (i < end) {
            int b0 = b[i] & 0xFF;
            if (b0 < 0x80) {
                i++;
                continue;
            }
            int need;
            int lo = 0x80;
            int hi = 0xBF; // allowed range of the second byte; later bytes are always 80..BF
            if (b0 >= 0xC2 && b0 <= 0xDF) {
                need = 1;
            } else if (b0 >= 0xE0 && b0 <= 0xEF) {
                need = 2;
                if (b0 == 0xE0) {
                    lo = 0xA0; // exclude overlong 3-byte forms
                } else if (b0 == 0xED) {
                    hi = 0x9F; // exclude UTF-16 surrogates
                }
            } else if (b0 >= 0xF0 && b0 <= 0xF4) {
                need = 3;
                if (b0 == 0xF0) {
                    lo = 0x90; // exclude overlong 4-byte forms
                } else if (b0 == 0xF4) {
                    hi = 0x8F; // exclude code points above U+10FFFF
                }
            } else {
                return false; // 80..C1 (continuation or overlong lead) and F5..FF
            }
            if (end - i <= need) {
                return false;
            }
            int b1 = b[i + 1] & 0xFF;
            if (b1 < lo || b1 > hi) {
                return false;
            }
            for (int k = 2; k <= need; k++) {
                if ((b[i + k] & 0xC0) != 0x80) {
                    return false;
                }
            }
            i += need + 1;
        }
        return true;
    }

    /** Decodes bytes already known to be well-formed; the JDK decoder is then exact. */
    static String decodeWellFormed(byte[] b, int off, int len) {
        return new String(b, off, len, StandardCharsets.UTF_8);
    }
}
