package io.queen.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.queen.http.PipelineStage;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads the body of the hot write routes ({@link #ROUTES}: push, ack, ack batch, transaction) whole on the event
 * loop before the (virtual-thread) resource runs. Without it RESTEasy Reactive hands a blocking endpoint its body
 * through a blocking InputStream, and every network chunk of it costs an event-loop to virtual-thread hop (a lock,
 * park, unpark, selector wakeup): measurable CPU on every request of more than a few kilobytes (an ack batch of
 * 1,000 is ~150 KiB). The size limit stays {@code quarkus.http.limits.max-body-size}, checked first by
 * {@link RouterErrors}. Stateless after startup; the route handlers run on event-loop threads.
 */
@ApplicationScoped
public class WholeBodyReader {
    /** POST routes whose bodies are read whole on the event loop. */
    static final List<String> ROUTES = List.of("/api/v1/push", "/api/v1/ack", "/api/v1/ack/batch",
            "/api/v1/transaction");

    private final long limit;

    WholeBodyReader(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize limit) {
        this.limit = limit.asLongValue();
    }

    /** Size of the pieces a body without a declared length is gathered in (below Netty's 4 MiB step). */
    static final int PIECE_BYTES = 1 << 20;

    /**
     * A body without a declared length, gathered in pieces of about {@link #PIECE_BYTES} and joined once at its
     * end: the body handler appends every chunk to one buffer, which past 4 MiB grows in 4 MiB steps, each a
     * fresh copy of everything so far, on the event loop (a 64 MB body held an event loop for seconds). Pieces
     * rather than the chunks themselves: a body sent in 16-byte chunks would otherwise cost an object per chunk.
     * Past the limit the request fails with 413 (answered by {@link RouterErrors}, which closes the connection)
     * and the rest is dropped.
     */
    private void readChunked(RoutingContext rc) {
        HttpServerRequest request = rc.request();
        if (request.isEnded()) {
            rc.next();   // nothing left to read (the empty-body handler after this one gives it an empty body)
            return;
        }
        String expect = request.getHeader("Expect");
        if (expect != null && !expect.equalsIgnoreCase("100-continue")) {
            rc.fail(417);   // as the body handler answers an expectation it cannot meet
            return;
        }
        if (expect != null && request.version() != HttpVersion.HTTP_1_0) {
            rc.response().writeContinue();
        }
        List<Buffer> parts = new ArrayList<>();
        Buffer[] piece = {Buffer.buffer()};
        long[] size = {0};
        boolean[] failed = {false};
        request.handler(part -> {
            if (failed[0]) {
                return;
            }
            size[0] += part.length();
            if (size[0] > limit) {
                failed[0] = true;
                parts.clear();
                rc.fail(413);
                return;
            }
            if (piece[0].length() >= PIECE_BYTES) {
                parts.add(piece[0]);
                piece[0] = Buffer.buffer();
            }
            piece[0].appendBuffer(part);
        });
        request.exceptionHandler(e -> {
            if (!failed[0]) {
                failed[0] = true;
                parts.clear();
                rc.fail(e);
            }
        });
        request.endHandler(v -> {
            if (failed[0]) {
                return;
            }
            parts.add(piece[0]);
            Buffer body = Buffer.buffer((int) size[0]);
            for (Buffer part : parts) {
                body.appendBuffer(part);
            }
            parts.clear();
            rc.setBody(body);
            rc.next();
        });
        request.resume();
    }

    void init(@Observes Router router) {
        BodyHandler whole = BodyHandler.create(false).setBodyLimit(limit).setHandleFileUploads(false)
                .setPreallocateBodyBuffer(true).setMergeFormAttributes(false);
        for (String path : ROUTES) {
            // HTTP/1.x only: RESTEasy Reactive pauses the request when it starts, which an HTTP/2 stream refuses
            // once its body has been read ("Request has already been read", a 500); HTTP/2 requests take the
            // standard path
            PipelineStage.WHOLE_BODY.on(router.post(path)).handler(rc -> {
                if (rc.request().version() == HttpVersion.HTTP_2) {
                    rc.next();
                } else if (rc.request().getHeader("Content-Length") == null) {
                    readChunked(rc);
                } else {
                    whole.handle(rc);
                }
            });
            // an empty body leaves no buffer behind, and the resource would then wait for body events that were
            // already consumed: hand it an empty one
            PipelineStage.EMPTY_BODY.on(router.post(path)).handler(rc -> {
                if (rc.request().version() != HttpVersion.HTTP_2 && rc.body().buffer() == null) {
                    rc.setBody(Buffer.buffer());
                }
                rc.next();
            });
        }
    }
}
