package io.queen.push;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads a {@code POST /api/v1/push} body whole on the event loop before the (virtual-thread) resource runs.
 * Without it the resource pulls the body through a blocking InputStream, and every chunk of it costs an
 * event-loop to virtual-thread hop (park, unpark, selector wakeup): measurable CPU on every push of more than
 * a few kilobytes. The size limit stays {@code quarkus.http.limits.max-body-size}, checked first by
 * {@link io.queen.api.RouterErrors}.
 */
@ApplicationScoped
public class PushBodyReader {
    private final long limit;

    PushBodyReader(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize limit) {
        this.limit = limit.asLongValue();
    }

    void init(@Observes Router router) {
        BodyHandler whole = BodyHandler.create(false).setBodyLimit(limit).setHandleFileUploads(false)
                .setPreallocateBodyBuffer(true).setMergeFormAttributes(false);
        // HTTP/1.x only: RESTEasy Reactive pauses the request when it starts, which an HTTP/2 stream refuses once
        // its body has been read ("Request has already been read", a 500); HTTP/2 pushes take the standard path
        router.post("/api/v1/push").order(Integer.MIN_VALUE + 1).handler(rc -> {
            if (rc.request().version() == HttpVersion.HTTP_2) {
                rc.next();
            } else {
                whole.handle(rc);
            }
        });
        // an empty body leaves no buffer behind, and the resource would then wait for body events that were
        // already consumed: hand it an empty one
        router.post("/api/v1/push").order(Integer.MIN_VALUE + 2).handler(rc -> {
            if (rc.request().version() != HttpVersion.HTTP_2 && rc.body().buffer() == null) {
                rc.setBody(Buffer.buffer());
            }
            rc.next();
        });
    }
}
