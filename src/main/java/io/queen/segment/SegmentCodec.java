package io.queen.segment;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import io.queen.segment.SegmentFormatException.Kind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Encodes lists of {@link Frame}s into segment blobs and decodes them back, in full or by frame range.
 *
 * <p>Invariants: {@code decode(encode(frames, level))} equals {@code frames} for every level; and
 * {@code decode(blob, s, t)} equals {@code decode(blob).subList(s, s + t)} for every valid range. Any
 * input that is not a well-formed segment, or a range the segment does not cover, ends in a
 * {@link SegmentFormatException} with the matching {@link Kind}; nothing is skipped silently and no
 * bounds or zstd-jni exception escapes. The ranged decoder inflates a segment of at most
 * {@link #WHOLE_INFLATE_LIMIT} raw bytes whole with a pooled context (checksum included) and parses the range;
 * a larger one it streams: frames before {@code startIndex} are skipped by their u32 length prefix alone and
 * decompression stops once the last wanted frame is read, so it cannot verify zstd's content checksum, which
 * follows the data: corruption that still inflates to structurally valid frames, or that lies after the
 * requested range, is not reported by it. A full {@link #decode(byte[])}, {@link #decompress(byte[])} or
 * {@link #countFrames(byte[])} checks the whole blob, checksum included.
 *
 * <p>Decompressed size is capped at {@link #MAX_RAW_SEGMENT_BYTES} ({@link Kind#TOO_LARGE}) so a
 * hostile header cannot make us allocate gigabytes. Stateless; all methods are thread-safe.
 */
public final class SegmentCodec {

    /** zstd level used when none is given: a good speed/ratio point for JSON. */
    public static final int DEFAULT_LEVEL = 3;

    /** Largest raw (decompressed) segment accepted or produced: 1 GiB. */
    public static final int MAX_RAW_SEGMENT_BYTES = 1 << 30;

    private static final int ZSTD_MAGIC = 0xFD2FB528;
    /** Decompression window of the streaming decoder; bodies that fit are parsed in place. */
    private static final int STREAM_WINDOW = 64 * 1024;
    private static final int MAX_PREALLOCATED_FRAMES = 1024;
    /**
     * Ranged decodes of segments up to this raw size inflate the whole blob in one call: a pop reads most of a
     * typical segment anyway, and a stream allocates zstd's streaming context and window for every segment.
     */
    static final int WHOLE_INFLATE_LIMIT = 1 << 20;

    private SegmentCodec() {}

    // ------------------------------------------------------------------ encoding

    /** {@link #encode(List, int)} at {@link #DEFAULT_LEVEL}. */
    public static byte[] encode(List<Frame> frames) {
        return encode(frames, DEFAULT_LEVEL);
    }

    /** Packs {@code frames}, in order, into one segment blob compressed once at {@code level}. */
    public static byte[] encode(List<Frame> frames, int level) {
        Objects.requireNonNull(frames, "frames");
        long raw = 0;
        for (Frame f : frames) {
            raw += f.encodedSize();
        }
        SegmentBuilder b = new SegmentBuilder((int) Math.min(raw, MAX_RAW_SEGMENT_BYTES));
        for (Frame f : frames) {
            b.add(f);
        }
        return b.compress(level);
    }

    private static final int MIN_LEVEL = Zstd.minCompressionLevel();
    private static final int MAX_LEVEL = Zstd.maxCompressionLevel();
    /** Idle zstd contexts of one kind kept for reuse; more than this many idle ones are closed. */
    private static final int MAX_POOLED_CONTEXTS = 16;
    /** Scratch output buffers larger than this are not kept with a pooled context. */
    private static final int MAX_POOLED_SCRATCH = 4 << 20;

    /*
     * Idle native contexts for reuse: creating one per segment (what the one-shot Zstd calls do) allocates and
     * initialises zstd's tables every time; a reused context only resets its session, and the output is the same
     * either way.
     */
    private static final IdlePool<Compressor> COMPRESSORS = new IdlePool<>(MAX_POOLED_CONTEXTS);
    private static final IdlePool<ZstdDecompressCtx> DECOMPRESSORS = new IdlePool<>(MAX_POOLED_CONTEXTS);

    /** A reusable zstd compression context with its scratch output buffer. */
    private static final class Compressor {
        final ZstdCompressCtx ctx = new ZstdCompressCtx();
        int level = Integer.MIN_VALUE;
        byte[] scratch = new byte[0];

        Compressor() {
            ctx.setChecksum(true);
            ctx.setContentSize(true);
        }
    }

    static byte[] compressRaw(byte[] raw, int len, int level) {
        if (level < MIN_LEVEL || level > MAX_LEVEL) {
            throw new IllegalArgumentException("zstd level " + level + " outside [" + MIN_LEVEL + ", " + MAX_LEVEL + "]");
        }
        Compressor c = COMPRESSORS.take();
        if (c == null) {
            c = new Compressor();
        }
        boolean reusable = false;
        try {
            if (c.level != level) {
                c.ctx.setLevel(level);
                c.level = level;
            }
            int bound = (int) Zstd.compressBound(len);
            if (c.scratch.length < bound) {
                c.scratch = new byte[bound];
            }
            // One-shot compression records the content size in the frame header (the decoder sizes its
            // output from it); the checksum lets a full decode detect bit rot in stored segments.
            int n = c.ctx.compressByteArray(c.scratch, 0, bound, raw, 0, len);
            byte[] out = Arrays.copyOf(c.scratch, n);
            reusable = true;
            return out;
        } finally {
            if (c.scratch.length > MAX_POOLED_SCRATCH) {
                c.scratch = new byte[0];
            }
            if (!reusable || !COMPRESSORS.give(c)) {
                c.ctx.close();
            }
        }
    }

    /** The whole blob inflated with a pooled context into exactly {@code contentSize} bytes, checksum verified. */
    private static byte[] inflateWhole(byte[] blob, long contentSize) {
        ZstdDecompressCtx d = DECOMPRESSORS.take();
        if (d == null) {
            d = new ZstdDecompressCtx();
        }
        boolean reusable = false;
        try {
            byte[] out = new byte[(int) contentSize];
            int n;
            try {
                n = d.decompressByteArray(out, 0, out.length, blob, 0, blob.length);
            } catch (RuntimeException e) {
                throw badCompression("zstd: " + e.getMessage(), e);
            }
            reusable = true;
            if (n != contentSize) {
                throw badCompression("inflated to " + n + " bytes, header says " + contentSize, null);
            }
            return out;
        } finally {
            if (!reusable || !DECOMPRESSORS.give(d)) {
                d.close();
            }
        }
    }

    // ------------------------------------------------------------------ decoding

    /** All frames of a segment blob, validating the whole blob. */
    public static List<Frame> decode(byte[] blob) {
        return parse(decompress(blob), 0, -1);
    }

    /**
     * Frames {@code [startIndex, startIndex + take)} of a segment blob, streaming: earlier frames are
     * skipped by their length prefix and decompression stops after the last requested frame.
     *
     * @throws IllegalArgumentException if {@code startIndex} or {@code take} is negative
     * @throws SegmentFormatException {@link Kind#INDEX_OUT_OF_RANGE} if the segment has fewer than
     *     {@code startIndex + take} frames, or another kind for malformed input met on the way
     */
    public static List<Frame> decode(byte[] blob, int startIndex, int take) {
        return decode(blob, startIndex, take, MAX_RAW_SEGMENT_BYTES);
    }

    static List<Frame> decode(byte[] blob, int startIndex, int take, int maxRawBytes) {
        checkRange(startIndex, take);
        long contentSize = inspect(blob, maxRawBytes);
        List<Frame> out = new ArrayList<>(Math.min(take, MAX_PREALLOCATED_FRAMES));
        if (take == 0 && startIndex == 0) {
            return out;
        }
        if (contentSize > 0 && contentSize <= WHOLE_INFLATE_LIMIT) {
            return parse(inflateWhole(blob, contentSize), startIndex, take);
        }
        try (FrameStream in = new FrameStream(blob, contentSize, maxRawBytes)) {
            long index = 0;
            for (; index < startIndex; index++) {
                if (in.atEnd()) {
                    throw outOfRange(startIndex, take, index);
                }
                in.skip(in.readLength(index), index);
            }
            long end = (long) startIndex + take;
            for (; index < end; index++) {
                if (in.atEnd()) {
                    throw outOfRange(startIndex, take, index);
                }
                out.add(in.readFrame(in.readLength(index), index));
            }
        }
        return out;
    }

    /**
     * Frames {@code [startIndex, startIndex + take)} of a segment blob as a {@link FrameCursor} over its inflated
     * bytes, when the segment inflates whole as {@link #decode(byte[], int, int)} would inflate it (at most
     * {@link #WHOLE_INFLATE_LIMIT} raw bytes, its size recorded); null for a larger one, which {@code decode}
     * streams instead. The checksum is verified; frames are checked as the cursor reaches them.
     */
    public static FrameCursor cursor(byte[] blob, int startIndex, int take) {
        checkRange(startIndex, take);
        long contentSize = inspect(blob, MAX_RAW_SEGMENT_BYTES);
        if (contentSize <= 0 || contentSize > WHOLE_INFLATE_LIMIT) {
            return null;
        }
        return new FrameCursor(inflateWhole(blob, contentSize), startIndex, take);
    }

    /** Number of frames in a segment blob; checks the container and every length prefix, not the bodies. */
    public static int countFrames(byte[] blob) {
        return countRawFrames(decompress(blob));
    }

    /** Number of frames in raw (decompressed) frame bytes; checks every length prefix, not the bodies. */
    public static int countRawFrames(byte[] raw) {
        Objects.requireNonNull(raw, "raw");
        int pos = 0;
        int count = 0;
        while (pos < raw.length) {
            pos = nextFrame(raw, pos, count);
            count++;
        }
        return count;
    }

    /** The raw frame bytes of a segment blob, at most {@link #MAX_RAW_SEGMENT_BYTES} of them. */
    public static byte[] decompress(byte[] blob) {
        return decompress(blob, MAX_RAW_SEGMENT_BYTES);
    }

    /**
     * The raw frame bytes of a segment blob.
     *
     * @param maxRawBytes limit on the decompressed size, at most {@link #MAX_RAW_SEGMENT_BYTES}
     * @throws SegmentFormatException {@link Kind#BAD_COMPRESSION} unless the blob is exactly one valid
     *     zstd frame; {@link Kind#TOO_LARGE} if it inflates beyond {@code maxRawBytes}
     */
    public static byte[] decompress(byte[] blob, int maxRawBytes) {
        long contentSize = inspect(blob, maxRawBytes);
        if (contentSize > 0) {
            return inflateWhole(blob, contentSize);
        }
        // Size absent (streamed writer) or recorded as 0: inflate incrementally under the cap.
        try (FrameStream in = new FrameStream(blob, -1, maxRawBytes)) {
            return in.readAll();
        }
    }

    /** All frames in raw (decompressed) frame bytes. */
    public static List<Frame> parseFrames(byte[] raw) {
        Objects.requireNonNull(raw, "raw");
        return parse(raw, 0, -1);
    }

    /**
     * Frames {@code [startIndex, startIndex + take)} of raw (decompressed) frame bytes; earlier frames are
     * skipped by their length prefix and later ones are not looked at.
     */
    public static List<Frame> parseFrames(byte[] raw, int startIndex, int take) {
        Objects.requireNonNull(raw, "raw");
        checkRange(startIndex, take);
        return parse(raw, startIndex, take);
    }

    /** {@code take < 0} means "every frame from startIndex on, and the data must end on a frame boundary". */
    private static List<Frame> parse(byte[] raw, int startIndex, int take) {
        List<Frame> out = new ArrayList<>(take < 0 ? 16 : Math.min(take, MAX_PREALLOCATED_FRAMES));
        FrameCursor frames = new FrameCursor(raw, startIndex, take);
        while (frames.next()) {
            out.add(frames.frame());
        }
        return out;
    }

    /** Validates the length prefix at {@code pos} (which is {@code < raw.length}) and returns the next frame's offset. */
    static int nextFrame(byte[] raw, int pos, long index) {
        int left = raw.length - pos;
        if (left < FrameFormat.LENGTH_PREFIX) {
            throw FrameFormat.error(Kind.TRUNCATED_FRAME, "only " + left + " bytes left for the 4-byte length", index, pos);
        }
        long len = FrameFormat.u32(raw, pos);
        if (len > left - FrameFormat.LENGTH_PREFIX) {
            throw FrameFormat.error(Kind.LENGTH_PAST_END, "body_len " + len + " but only "
                    + (left - FrameFormat.LENGTH_PREFIX) + " bytes follow", index, pos);
        }
        return pos + FrameFormat.LENGTH_PREFIX + (int) len;
    }

    /**
     * Checks that {@code blob} is exactly one zstd frame and returns its recorded content size, or -1 when
     * the header does not record one (or records 0, which some writers use for "unknown").
     */
    private static long inspect(byte[] blob, int maxRawBytes) {
        Objects.requireNonNull(blob, "blob");
        if (maxRawBytes < 0 || maxRawBytes > MAX_RAW_SEGMENT_BYTES) {
            throw new IllegalArgumentException("maxRawBytes must be in [0, " + MAX_RAW_SEGMENT_BYTES + "]: " + maxRawBytes);
        }
        // Checked by hand: zstd-jni throws ArrayIndexOutOfBounds on an empty array and accepts
        // skippable frames, neither of which a segment can be.
        if (blob.length < 4 || (int) FrameFormat.u32(blob, 0) != ZSTD_MAGIC) {
            throw badCompression("not a zstd frame (bad magic number)", null);
        }
        long size;
        long frameLength;
        try {
            size = Zstd.getFrameContentSize(blob);
            frameLength = Zstd.findFrameCompressedSize(blob);
        } catch (RuntimeException e) {
            throw badCompression("zstd: " + e.getMessage(), e);
        }
        if (size < -1) { // -2 is ZSTD_CONTENTSIZE_ERROR
            throw badCompression("unreadable zstd frame header", null);
        }
        if (frameLength != blob.length) {
            throw badCompression("zstd frame is " + frameLength + " bytes but the blob has " + blob.length, null);
        }
        if (size > maxRawBytes) {
            throw new SegmentFormatException(Kind.TOO_LARGE, "segment inflates to " + size + " bytes, limit " + maxRawBytes);
        }
        return size > 0 ? size : -1;
    }

    private static void checkRange(int startIndex, int take) {
        if (startIndex < 0 || take < 0) {
            throw new IllegalArgumentException("startIndex and take must be >= 0: " + startIndex + ", " + take);
        }
    }

    static SegmentFormatException outOfRange(int startIndex, int take, long count) {
        String want = take < 0 ? "from frame " + startIndex : "frames [" + startIndex + ", " + ((long) startIndex + take) + ")";
        return new SegmentFormatException(Kind.INDEX_OUT_OF_RANGE, want + " requested but the segment has " + count + " frames");
    }

    private static SegmentFormatException badCompression(String what, Throwable cause) {
        return new SegmentFormatException(Kind.BAD_COMPRESSION, what, cause);
    }

    /**
     * Incremental reader of the raw frame stream inside a blob. Keeps a window of decompressed bytes;
     * {@code base} is the raw offset of {@code win[0]}, so {@code base + pos} is the read position.
     * Not thread-safe; lives for one decode call.
     */
    private static final class FrameStream implements AutoCloseable {
        private final ZstdInputStreamNoFinalizer in;
        private final long knownSize; // -1 when unknown
        private final long maxRaw;
        private final byte[] win;
        private int pos;
        private int lim;
        private long base;
        private long inflated; // total bytes pulled from zstd, for the size cap
        private boolean eof;

        FrameStream(byte[] blob, long knownSize, int maxRaw) {
            this.knownSize = knownSize;
            this.maxRaw = maxRaw;
            // A small segment needs no 64 KiB window.
            this.win = new byte[knownSize > 0 ? (int) Math.min(STREAM_WINDOW, Math.max(knownSize, 16)) : STREAM_WINDOW];
            try {
                this.in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(blob), RecyclingBufferPool.INSTANCE);
            } catch (IOException | RuntimeException e) {
                throw badCompression("zstd: " + e.getMessage(), e);
            }
        }

        private long position() {
            return base + pos;
        }

        /** Reads decompressed bytes; -1 at the end of the zstd frame. */
        private int read(byte[] dst, int off, int len) {
            int n;
            try {
                n = in.read(dst, off, len);
            } catch (IOException | RuntimeException e) {
                throw badCompression("zstd: " + e.getMessage(), e);
            }
            if (n < 0) {
                eof = true;
                return -1;
            }
            inflated += n;
            if (inflated > maxRaw) {
                throw new SegmentFormatException(Kind.TOO_LARGE, "segment inflates beyond " + maxRaw + " bytes");
            }
            return n;
        }

        /** Buffers at least {@code want <= win.length} bytes unless the stream ends first; returns the bytes buffered. */
        private int fill(int want) {
            if (lim - pos >= want || eof) {
                return lim - pos;
            }
            if (pos > 0) {
                System.arraycopy(win, pos, win, 0, lim - pos);
                base += pos;
                lim -= pos;
                pos = 0;
            }
            while (lim < want) {
                int n = read(win, lim, win.length - lim); // fill the window to save JNI round trips
                if (n < 0) {
                    break;
                }
                lim += n;
            }
            return lim - pos;
        }

        boolean atEnd() {
            return fill(1) == 0;
        }

        /** Reads the u32 length prefix of frame {@code index}; the caller checked {@link #atEnd()}. */
        long readLength(long index) {
            long at = position();
            int avail = fill(FrameFormat.LENGTH_PREFIX);
            if (avail < FrameFormat.LENGTH_PREFIX) {
                throw FrameFormat.error(Kind.TRUNCATED_FRAME, "only " + avail + " bytes left for the 4-byte length", index, at);
            }
            long len = FrameFormat.u32(win, pos);
            pos += FrameFormat.LENGTH_PREFIX;
            if (knownSize >= 0 && len > knownSize - position()) {
                throw pastEnd(len, index, at);
            }
            return len;
        }

        /** Discards {@code n} bytes (a frame body we do not want). */
        void skip(long n, long index) {
            long at = position() - FrameFormat.LENGTH_PREFIX;
            long len = n;
            if (n <= lim - pos) {
                pos += (int) n;
                return;
            }
            n -= lim - pos;
            base += lim;
            pos = 0;
            lim = 0;
            while (n > 0) {
                int r = read(win, 0, win.length);
                if (r < 0) {
                    throw pastEnd(len, index, at);
                }
                if (r > n) { // keep the start of the next frame
                    pos = (int) n;
                    lim = r;
                    return;
                }
                base += r;
                n -= r;
            }
        }

        /** Reads and parses a body of {@code len} bytes. */
        Frame readFrame(long len, long index) {
            long at = position() - FrameFormat.LENGTH_PREFIX;
            if (len <= win.length) {
                if (fill((int) len) < len) {
                    throw pastEnd(len, index, at);
                }
                Frame f = FrameFormat.parseBody(win, pos, (int) len, index, at);
                pos += (int) len;
                return f;
            }
            // A body larger than the window: collect it, growing with the data actually present so a
            // bogus length cannot force a huge allocation.
            byte[] body = new byte[(int) Math.min(len, Math.max(STREAM_WINDOW, lim - pos))];
            int filled = lim - pos;
            System.arraycopy(win, pos, body, 0, filled);
            base += lim;
            pos = 0;
            lim = 0;
            while (filled < len) {
                if (filled == body.length) {
                    body = Arrays.copyOf(body, (int) Math.min(len, Math.min(body.length * 2L, maxRaw + 1)));
                }
                int r = read(body, filled, body.length - filled);
                if (r < 0) {
                    throw pastEnd(len, index, at);
                }
                filled += r;
                base += r;
            }
            return FrameFormat.parseBody(body, 0, (int) len, index, at);
        }

        /** The rest of the stream (used when the header has no content size). */
        byte[] readAll() {
            byte[] out = new byte[STREAM_WINDOW];
            int n = 0;
            while (true) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, (int) Math.min(out.length * 2L, maxRaw + 1L));
                }
                int r = read(out, n, out.length - n);
                if (r < 0) {
                    return Arrays.copyOf(out, n);
                }
                n += r;
            }
        }

        private SegmentFormatException pastEnd(long len, long index, long at) {
            return FrameFormat.error(Kind.LENGTH_PAST_END, "body_len " + len + " runs past the end of the segment", index, at);
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException ignored) {
                // Closing an in-memory stream only frees the native context; nothing to report.
            }
        }
    }
}
