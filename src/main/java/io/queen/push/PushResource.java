package io.queen.push;

import io.quarkus.runtime.configuration.MemorySize;
import io.queen.api.Failures;
import io.queen.api.JsonBytes;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.queen.config.QueenConfig;
import io.queen.tracing.BrokerTracing;
import io.queen.tracing.TraceParent;
import io.opentelemetry.api.trace.Span;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code POST /api/v1/push} (API spec 3.3): validates the whole request first (a bad item rejects it and
 * nothing is written), hands it to {@link LogWriter#push} (which collapses repeats of a (queue, partition,
 * transactionId) inside the request onto the first occurrence) and answers one result per item in request order
 * once every item's segment has committed (read-your-writes), or every item {@code buffered} during push
 * maintenance.
 */
@Path("/api/v1/push")
public class PushResource {
    private final LogWriter writer;
    private final PushRequestParser parser;
    private final Callers callers;
    private final BrokerTracing tracing;

    PushResource(LogWriter writer, QueenConfig config, Callers callers, BrokerTracing tracing,
            @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBody) {
        this.writer = writer;
        this.callers = callers;
        this.tracing = tracing;
        this.parser = new PushRequestParser(config.push().maxItems(), maxBody.asLongValue());
    }

    @Access(Access.Level.PRODUCE)
    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response push(byte[] body, @HeaderParam("traceparent") String traceparent) throws SQLException {
        List<PushItem> parsed = withTraceParent(parser.parse(body), traceparent);
        Span span = tracing.startBatch("queen push", traceparent,
                () -> parsed.stream().map(it -> BrokerTracing.of(it.traceId(), it.spanId(), it.traceFlags())).iterator());
        if (span.isRecording()) {
            span.setAttribute(BrokerTracing.OPERATION, "send").setAttribute(BrokerTracing.COUNT, parsed.size())
                    .setAttribute(BrokerTracing.DESTINATION, parsed.isEmpty() ? "" : parsed.get(0).queue());
        }
        return BrokerTracing.within(span, () -> push(parsed));
    }

    /**
     * The request's W3C trace context ({@code traceparent} header, as HTTP instrumentations send it) becomes the
     * producer context of the items that name no trace of their own; a malformed header is ignored (W3C).
     */
    private static List<PushItem> withTraceParent(List<PushItem> items, String header) {
        if (header == null) {
            return items;
        }
        TraceParent t;
        try {
            t = TraceParent.parse(header);
        } catch (IllegalArgumentException e) {
            return items;
        }
        List<PushItem> out = new java.util.ArrayList<>(items.size());
        for (PushItem it : items) {
            out.add(it.withTraceParent(t.traceId(), t.spanId(), t.flags()));
        }
        return out;
    }

    private Response push(List<PushItem> parsed) throws SQLException {
        LogWriter.Pushed pushed;
        try {
            pushed = writer.push(callers.current(), parsed);
        } catch (IOException e) {
            return Response.status(503).header("Retry-After", "1").type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(new JsonBytes(128).raw("{\"error\":").string("push maintenance: the broker's spool"
                            + " could not be written; nothing was stored").raw('}').toByteArray()).build();
        }
        List<PushItem> items = pushed.items();
        if (pushed.buffered()) {
            return buffered(items);
        }
        int n = items.size();
        JsonBytes out = new JsonBytes(64 + n * 400);
        out.raw('[');
        String firstError = null;
        boolean retryable = false;
        JsonBytes.Memo queues = new JsonBytes.Memo();
        JsonBytes.Memo partitions = new JsonBytes.Memo();
        for (int i = 0; i < n; i++) {
            PushItem it = items.get(i);
            PushFusion.Verdict v = pushed.verdicts().get(i);
            out.raw(i == 0 ? INDEX_FIRST : INDEX_NEXT).number(i);
            switch (v.status()) {
                case QUEUED -> {
                    out.raw(QUEUED);
                    ids(out, it, v, queues, partitions);
                    out.raw(PARTITION_ID).uuid(v.partitionId());
                    out.raw(TRACE_ID);
                    if (it.traceId() == null) {
                        out.raw(NULL);
                    } else {
                        out.uuid(it.traceId());
                    }
                    out.raw(OFFSET).number(v.offset());
                }
                case DUPLICATE -> {
                    out.raw(DUPLICATE);
                    ids(out, it, v, queues, partitions);
                    if (v.partitionId() != null) {
                        out.raw(PARTITION_ID).uuid(v.partitionId());
                    }
                }
                case FAILED -> {
                    out.raw(",\"status\":\"failed\"");
                    out.raw(",\"transaction_id\":").string(it.transactionId());
                    out.raw(",\"transactionId\":").string(it.transactionId());
                    out.raw(",\"queue\":").string(it.queue());
                    out.raw(",\"partition\":").string(it.partition());
                    out.raw(",\"error\":").string(v.error());
                    if (firstError == null) {
                        firstError = v.error();
                    }
                    retryable |= v.retryable();
                }
            }
            out.raw('}');
        }
        out.raw(']');
        if (firstError != null) {
            // Clients retry a 5xx with the same transaction ids; dedup turns the items that did commit into
            // "duplicate", so a retry is safe. Each item still says what happened to it.
            // The cause was logged where it happened (PushFusion); the answer carries no driver text. An
            // unavailable database or lock contention is a 503 with Retry-After: the retry is expected to work.
            byte[] itemsJson = out.toByteArray();
            JsonBytes err = new JsonBytes(256);
            err.raw("{\"error\":").string("push failed for some items: " + firstError).raw(",\"items\":");
            Response.ResponseBuilder rb = Response.status(retryable ? 503 : 500).type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(err.raw(itemsJson).raw('}').toByteArray());
            if (retryable) {
                rb.header("Retry-After", Failures.RETRY_AFTER_SECONDS);
            }
            return rb.build();
        }
        return bytes(201, out.toByteArray());
    }

    /** Every item {@code buffered}: the request was spooled durably for push maintenance (API spec 4.13). */
    private static Response buffered(List<PushItem> items) {
        JsonBytes out = new JsonBytes(64 + items.size() * 200);
        out.raw('[');
        for (int i = 0; i < items.size(); i++) {
            PushItem it = items.get(i);
            out.raw(i == 0 ? INDEX_FIRST : INDEX_NEXT).number(i).raw(",\"status\":\"buffered\"");
            out.raw(TXN_SNAKE).string(it.transactionId()).raw(TXN_CAMEL).string(it.transactionId());
            out.raw(MESSAGE_ID).uuid(it.messageId());
            out.raw(QUEUE).string(it.queue()).raw(PARTITION).string(it.partition()).raw('}');
        }
        return bytes(201, out.raw(']').toByteArray());
    }

    private static Response bytes(int status, byte[] json) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(json).build();
    }

    private static final byte[] INDEX_FIRST = JsonBytes.ascii("{\"index\":");
    private static final byte[] INDEX_NEXT = JsonBytes.ascii(",{\"index\":");
    private static final byte[] QUEUED = JsonBytes.ascii(",\"status\":\"queued\"");
    private static final byte[] DUPLICATE = JsonBytes.ascii(",\"status\":\"duplicate\"");
    private static final byte[] PARTITION_ID = JsonBytes.ascii(",\"partition_id\":");
    private static final byte[] TRACE_ID = JsonBytes.ascii(",\"trace_id\":");
    private static final byte[] OFFSET = JsonBytes.ascii(",\"offset\":");
    private static final byte[] NULL = JsonBytes.ascii("null");
    private static final byte[] TXN_SNAKE = JsonBytes.ascii(",\"transaction_id\":");
    private static final byte[] TXN_CAMEL = JsonBytes.ascii(",\"transactionId\":");
    private static final byte[] MESSAGE_ID = JsonBytes.ascii(",\"message_id\":");
    private static final byte[] QUEUE_NAME = JsonBytes.ascii(",\"queueName\":");
    private static final byte[] QUEUE = JsonBytes.ascii(",\"queue\":");
    private static final byte[] PARTITION = JsonBytes.ascii(",\"partition\":");

    /** Same key order and values as the tree this replaced: transaction_id, transactionId, message_id, queueName, queue, partition. */
    private static void ids(JsonBytes out, PushItem it, PushFusion.Verdict v, JsonBytes.Memo queues,
                            JsonBytes.Memo partitions) {
        byte[] queue = queues.of(it.queue());
        out.raw(TXN_SNAKE);
        int from = out.size();
        int to = out.string(it.transactionId()).size();
        out.raw(TXN_CAMEL).again(from, to);
        out.raw(MESSAGE_ID).uuid(v.messageId());
        out.raw(QUEUE_NAME).raw(queue);
        out.raw(QUEUE).raw(queue);
        out.raw(PARTITION).raw(partitions.of(it.partition()));
    }
}
