package io.queen.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
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

    void init(@Observes Router router) {
        BodyHandler whole = BodyHandler.create(false).setBodyLimit(limit).setHandleFileUploads(false)
                .setPreallocateBodyBuffer(true).setMergeFormAttributes(false);
        for (String path : ROUTES) {
            // HTTP/1.x only: RESTEasy Reactive pauses the request when it starts, which an HTTP/2 stream refuses
            // once its body has been read ("Request has already been read", a 500); HTTP/2 requests take the
            // standard path
            router.post(path).order(Integer.MIN_VALUE + 1).handler(rc -> {
                if (rc.request().version() == HttpVersion.HTTP_2) {
                    rc.next();
                } else {
                    whole.handle(rc);
                }
            });
            // an empty body leaves no buffer behind, and the resource would then wait for body events that were
            // already consumed: hand it an empty one
            router.post(path).order(Integer.MIN_VALUE + 2).handler(rc -> {
                if (rc.request().version() != HttpVersion.HTTP_2 && rc.body().buffer() == null) {
                    rc.setBody(Buffer.buffer());
                }
                rc.next();
            });
        }
    }
}
