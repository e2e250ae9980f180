package io.queen.kafka.transport;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.queen.logging.BadInputLog;

/**
 * One client connection: cuts the byte stream into length-prefixed request frames, hands each to the
 * {@link KafkaDispatcher} and writes the answers back in request order (clients pipeline requests and match
 * answers by order as well as by correlation id), even when a later request finishes first.
 *
 * <p>Invariants: {@link #slots} holds one future per request read and not yet written, oldest first; only the
 * connection's event-loop thread touches it (completions hop back onto the context). A frame larger than the
 * limit, or one that cannot be parsed, closes this connection only (logged through {@link BadInputLog}, one line).
 * Reading pauses while more than {@code maxInflight} requests wait for their answer.
 *
 * <p>Deadlines (one timer at a time, re-armed lazily): a connection must complete its first request within
 * {@code readTimeoutMs} of being accepted, and every later request within {@code readTimeoutMs} of its first byte;
 * with nothing unfinished and no answer pending it may stay silent {@code idleTimeoutMs} (Apache Kafka's
 * {@code connections.max.idle.ms}). A request being served (a long-polling Fetch) is never cut, nor one whose rest
 * waits in the socket while reading is paused (the deadline then runs from the resume).
 *
 * <p>After a SaslHandshake v0 the next frame is a raw SASL token, not a request (the framing of Kafka before
 * SaslAuthenticate): it is answered with the raw server token, or the connection is closed when it is refused.
 */
final class KafkaConnection {
    private static final BadInputLog BAD_INPUT = new BadInputLog(KafkaConnection.class);
    /** Largest raw SASL token (a PLAIN or OAUTHBEARER client message carrying a JWT). */
    static final int MAX_SASL_TOKEN_BYTES = 65_536;
    /**
     * A frame's array starts at most this large ({@link FrameCutter}): a produce request of a client's default
     * size fits at once, and a larger declared one is backed by its bytes as they come.
     */
    static final int FIRST_FRAME_BYTES = 1 << 20;

    private final NetSocket socket;
    private final Context context;
    private final KafkaDispatcher dispatcher;
    private final long maxFrameBytes;
    private final int maxInflight;
    private final KafkaSession session;
    private final long readTimeoutNanos;
    private final long idleTimeoutNanos;
    private final ArrayDeque<CompletableFuture<ByteBuf>> slots = new ArrayDeque<>();
    private final FrameCutter frames = new FrameCutter(FIRST_FRAME_BYTES);
    private boolean rawToken;
    private boolean paused;
    private boolean closed;
    /** Bytes read, and bytes of the frames cut from them: a frame is unfinished while they differ. */
    private long received;
    private long consumed;
    private boolean served;
    /** When the unfinished frame's first byte came, or when the connection last fell silent (nanoTime). */
    private long since = System.nanoTime();
    private boolean timerArmed;

    /** Sizes out of bounds close the connection; whole frames go to {@link #onFrame}. */
    private final FrameCutter.Sink sink = new FrameCutter.Sink() {
        @Override
        public boolean size(int size) {
            long min = rawToken ? 1 : 8;
            long max = rawToken ? MAX_SASL_TOKEN_BYTES : maxFrameBytes;
            if (size < min || size > max) {
                refuse(rawToken ? "SASL token of " + size + " bytes (1 to " + max + " accepted)"
                        : "request frame of " + size + " bytes (limit " + maxFrameBytes
                                + ", QUEEN_KAFKA_MAX_FRAME_BYTES)");
                return false;
            }
            return true;
        }

        @Override
        public boolean frame(byte[] frame) {
            onFrame(frame);
            return !closed;
        }
    };

    KafkaConnection(NetSocket socket, Context context, KafkaDispatcher dispatcher, long maxFrameBytes,
            int maxInflight, KafkaSession session, long readTimeoutMs, long idleTimeoutMs) {
        this.socket = socket;
        this.context = context;
        this.dispatcher = dispatcher;
        this.maxFrameBytes = maxFrameBytes;
        this.maxInflight = Math.max(1, maxInflight);
        this.session = session;
        this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(readTimeoutMs);
        this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs);
    }

    void start() {
        socket.handler(this::onBytes);
        dispatcher.meters().connectionOpened();
        socket.closeHandler(v -> {
            closed = true;
            dispatcher.meters().connectionClosed();
        });
        socket.exceptionHandler(e -> close());
        arm();
    }

    private void onBytes(Buffer bytes) {
        if (received == consumed && served) {
            since = System.nanoTime();   // a later frame starts: it has the read timeout from now
        }
        received += bytes.length();
        if (!closed) {
            frames.feed(bytes, sink);
        }
    }

    private void onFrame(byte[] record) {
        consumed += 4 + record.length;
        if (consumed == received) {
            since = System.nanoTime();
        }
        served = true;
        CompletableFuture<ByteBuf> answer;
        try {
            if (rawToken) {
                rawToken = false;
                answer = dispatcher.saslToken(session, record);
            } else {
                answer = dispatcher.dispatch(session, ByteBuffer.wrap(record));
                rawToken = session.expectsRawToken();
            }
        } catch (MalformedRequest e) {
            refuse(e.getMessage());
            return;
        }
        slots.add(answer);
        if (answer.isDone()) {
            flush();
        } else {
            answer.whenComplete((r, e) -> context.runOnContext(v -> flush()));
        }
        if (slots.size() >= maxInflight && !paused) {
            paused = true;
            socket.pause();
        }
    }

    /** Writes every finished answer at the head of the queue; a null answer (produce with acks=0) writes nothing. */
    private void flush() {
        while (!slots.isEmpty() && slots.peek().isDone()) {
            CompletableFuture<ByteBuf> head = slots.poll();
            if (closed) {
                continue;
            }
            ByteBuf out;
            try {
                out = head.join();
            } catch (RuntimeException e) {
                // the dispatcher turns handler failures into error answers: this one has none (a refused raw
                // SASL token, an answer that could not be written)
                Throwable cause = e.getCause() == null ? e : e.getCause();
                refuse(String.valueOf(cause.getMessage()));
                continue;
            }
            if (out == null) {
                continue;
            }
            socket.write(Buffer.buffer(out));
        }
        if (slots.isEmpty() && received == consumed) {
            since = System.nanoTime();
        }
        if (paused && slots.size() < maxInflight && !closed) {
            paused = false;
            since = System.nanoTime();   // a request read in part before the pause has the read timeout from now
            socket.resume();
        }
    }

    /**
     * The deadline now in force (nanoTime), or none (Long.MAX_VALUE) while an answer is pending or reading is paused:
     * a request whose rest waits in the socket because this side stopped reading is not the client's delay.
     */
    private long deadline() {
        if (paused) {
            return Long.MAX_VALUE;
        }
        if (received != consumed || !served) {
            return since + readTimeoutNanos;
        }
        return slots.isEmpty() && idleTimeoutNanos > 0 ? since + idleTimeoutNanos : Long.MAX_VALUE;
    }

    private void arm() {
        if (timerArmed || closed || readTimeoutNanos <= 0) {
            return;
        }
        long d = deadline();
        long delayMs = d == Long.MAX_VALUE ? TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos)
                : Math.max(1, TimeUnit.NANOSECONDS.toMillis(d - System.nanoTime()) + 1);
        timerArmed = true;
        context.owner().setTimer(delayMs, id -> check());
    }

    private void check() {
        timerArmed = false;
        if (closed) {
            return;
        }
        long d = deadline();
        if (d != Long.MAX_VALUE && System.nanoTime() - d >= 0) {
            if (served && received == consumed) {
                close();   // an idle client's connection, as Apache Kafka closes one: not bad input
            } else {
                refuse((served ? "a request not completed" : "no request") + " within "
                        + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms (QUEEN_KAFKA_READ_TIMEOUT_MS)");
            }
            return;
        }
        arm();
    }

    /** Closes the connection for what it sent, with one (rate-limited) line. */
    private void refuse(String why) {
        if (!closed) {
            BAD_INPUT.warn("kafka connection from " + session.clientHost() + " closed: " + why);
            close();
        }
    }

    private void close() {
        if (!closed) {
            closed = true;
            socket.close();
        }
    }
}
