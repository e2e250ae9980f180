package io.queen.kafka.transport;

import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Cuts a connection's byte stream into Kafka's frames (a 4-byte big-endian size, then that many bytes) as the bytes
 * come. Each frame is copied once, into an array of its own, which the request is then parsed from in place (a
 * produce's record batches stay slices of it). A frame's array starts at most {@code firstArrayBytes} large and
 * doubles as its bytes arrive, so a client that declares a large frame and sends little holds little memory. Not
 * thread-safe: one connection's event loop feeds it.
 */
final class FrameCutter {
    /** What the frames go to. */
    interface Sink {
        /** The next frame's declared size: true to read the frame, false to stop reading (the connection closes). */
        boolean size(int size);

        /** A whole frame, without its size: true to go on reading, false to stop. */
        boolean frame(byte[] frame);
    }

    private final int firstArrayBytes;
    private final byte[] sizeBytes = new byte[4];
    private int sizeFill;
    /** The frame being read (null while its size is), its declared size, how many of its bytes have come. */
    private byte[] frame;
    private int frameSize;
    private int frameFill;

    FrameCutter(int firstArrayBytes) {
        this.firstArrayBytes = firstArrayBytes;
    }

    /** Reads {@code bytes}, handing each frame they finish to {@code sink}, until they end or the sink stops. */
    void feed(Buffer bytes, Sink sink) {
        int len = bytes.length();
        int pos = 0;
        while (pos < len) {
            if (frame == null) {
                int n = Math.min(4 - sizeFill, len - pos);
                bytes.getBytes(pos, pos + n, sizeBytes, sizeFill);
                pos += n;
                sizeFill += n;
                if (sizeFill < 4) {
                    return;
                }
                sizeFill = 0;
                int size = ByteBuffer.wrap(sizeBytes).getInt();
                if (!sink.size(size)) {
                    return;
                }
                frameSize = size;
                frameFill = 0;
                frame = new byte[Math.min(size, firstArrayBytes)];
            }
            int n = Math.min(frameSize - frameFill, len - pos);
            if (frameFill + n > frame.length) {
                frame = Arrays.copyOf(frame, (int) Math.min(frameSize, Math.max(frameFill + n, 2L * frame.length)));
            }
            bytes.getBytes(pos, pos + n, frame, frameFill);
            pos += n;
            frameFill += n;
            if (frameFill == frameSize) {
                byte[] whole = frame;
                frame = null;
                if (!sink.frame(whole)) {
                    return;
                }
            }
        }
    }
}
