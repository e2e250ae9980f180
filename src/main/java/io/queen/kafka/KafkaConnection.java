package io.queen.kafka;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.jboss.logging.Logger;

/**
 * One client connection: cuts the byte stream into length-prefixed request frames, hands each to the
 * {@link KafkaDispatcher} and writes the answers back in request order (clients pipeline requests and match
 * answers by order as well as by correlation id), even when a later request finishes first.
 *
 * <p>Invariants: {@link #slots} holds one future per request read and not yet written, oldest first; only the
 * connection's event-loop thread touches it (completions hop back onto the context). A frame larger than the
 * limit, or one that cannot be parsed, closes this connection only. Reading pauses while more than
 * {@code maxInflight} requests wait for their answer.
 */
final class KafkaConnection {
    private static final Logger LOG = Logger.getLogger(KafkaConnection.class);

    private final NetSocket socket;
    private final Context context;
    private final KafkaDispatcher dispatcher;
    private final long maxFrameBytes;
    private final int maxInflight;
    private final KafkaSession session;
    private final ArrayDeque<CompletableFuture<ByteBuffer>> slots = new ArrayDeque<>();
    private final RecordParser parser;
    private boolean readingSize = true;
    private boolean paused;
    private boolean closed;

    KafkaConnection(NetSocket socket, Context context, KafkaDispatcher dispatcher, long maxFrameBytes,
            int maxInflight, KafkaSession session) {
        this.socket = socket;
        this.context = context;
        this.dispatcher = dispatcher;
        this.maxFrameBytes = maxFrameBytes;
        this.maxInflight = Math.max(1, maxInflight);
        this.session = session;
        this.parser = RecordParser.newFixed(4, this::onRecord);
    }

    void start() {
        socket.handler(parser);
        socket.closeHandler(v -> closed = true);
        socket.exceptionHandler(e -> {
            LOG.debugf("kafka connection from %s: %s", session.clientHost(), e.getMessage());
            close();
        });
    }

    private void onRecord(Buffer record) {
        if (closed) {
            return;
        }
        if (readingSize) {
            int size = record.getInt(0);
            if (size < 8 || size > maxFrameBytes) {
                LOG.warnf("kafka connection from %s closed: request frame of %d bytes (limit %d,"
                        + " QUEEN_KAFKA_MAX_FRAME_BYTES)", session.clientHost(), size, maxFrameBytes);
                close();
                return;
            }
            readingSize = false;
            parser.fixedSizeMode(size);
            return;
        }
        readingSize = true;
        parser.fixedSizeMode(4);
        CompletableFuture<ByteBuffer> answer;
        try {
            answer = dispatcher.dispatch(session, record.getBytes());
        } catch (MalformedRequest e) {
            LOG.warnf("kafka connection from %s closed: %s", session.clientHost(), e.getMessage());
            close();
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
            CompletableFuture<ByteBuffer> head = slots.poll();
            if (closed) {
                continue;
            }
            ByteBuffer out;
            try {
                out = head.join();
            } catch (RuntimeException e) {
                // the dispatcher turns handler failures into error answers; this is a failure to write one
                LOG.warnf("kafka connection from %s closed: %s", session.clientHost(), e.getMessage());
                close();
                continue;
            }
            if (out == null) {
                continue;
            }
            socket.write(Buffer.buffer(io.netty.buffer.Unpooled.wrappedBuffer(out)));
        }
        if (paused && slots.size() < maxInflight && !closed) {
            paused = false;
            socket.resume();
        }
    }

    private void close() {
        if (!closed) {
            closed = true;
            socket.close();
        }
    }
}
