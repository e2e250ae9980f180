package io.queen.pop;

import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.queen.config.QueenConfig;
import io.queen.tracing.BrokerTracing;
import io.queen.live.PopClients;
import io.queen.maintenance.MaintenanceSwitches;
import io.queen.shutdown.DrainState;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.TimeUnit;

/**
 * The three pop routes (API spec 3.4, 3.5). "Nothing" is always 204 with no body, including for an unknown
 * queue or partition: a consume loop dies on any 4xx. A long poll first takes a place in the {@link ParkingBudget};
 * without one it is answered 204 at once.
 */
@Path("/api/v1/pop")
public class PopResource {
    private final PopService service;
    private final QueenConfig config;
    private final Callers callers;

    private final MaintenanceSwitches switches;
    private final DrainState drain;
    private final ParkingBudget parking;
    private final PopClients clients;
    private final PopClock clock;
    private final BrokerTracing tracing;

    PopResource(PopService service, QueenConfig config, Callers callers, MaintenanceSwitches switches,
            DrainState drain, ParkingBudget parking, PopClients clients, PopClock clock, BrokerTracing tracing) {
        this.tracing = tracing;
        this.clients = clients;
        this.clock = clock;
        this.drain = drain;
        this.parking = parking;
        this.service = service;
        this.config = config;
        this.callers = callers;
        this.switches = switches;
    }

    /**
     * Pop maintenance: nothing is leased. A long poll is held (no database work) until its timeout, so a consume
     * loop does not spin on 204s; if maintenance ends meanwhile, the pop goes on with the time it has left.
     * Returns the request to serve, or null to answer 204.
     */
    private PopRequest holdDuringMaintenance(PopRequest r, HttpServerResponse response) {
        if (!r.longPoll()) {
            return null;
        }
        long deadline = clock.nanoTime() + r.timeoutMs() * 1_000_000L;
        while (switches.popMaintenance()) {
            long left = (deadline - clock.nanoTime()) / 1_000_000L;
            if (left <= 0 || response.closed() || drain.draining()) {
                return null;
            }
            try {
                clock.sleep(TimeUnit.MILLISECONDS.toNanos(Math.min(left, 50)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        long left = (deadline - clock.nanoTime()) / 1_000_000L;
        return left <= 0 ? null : r.withTimeoutMs(left);
    }

    @Access(Access.Level.WRITE)
    @GET
    @Path("/queue/{queue}/partition/{partition}")
    @RunOnVirtualThread
    public Response partition(@PathParam("queue") String queue, @PathParam("partition") String partition,
            @QueryParam("batch") String batch, @QueryParam("wait") String wait, @QueryParam("timeout") String timeout,
            @QueryParam("consumerGroup") String group, @QueryParam("autoAck") String autoAck,
            @QueryParam("subscriptionMode") String subMode, @QueryParam("subscriptionFrom") String subFrom,
            @Context RoutingContext ctx) {
        return answer(PopRequest.parse(config, queue, partition, null, null, batch, wait, timeout, group, autoAck,
                subMode, subFrom, null), ctx);
    }

    @Access(Access.Level.WRITE)
    @GET
    @Path("/queue/{queue}")
    @RunOnVirtualThread
    public Response queue(@PathParam("queue") String queue, @QueryParam("batch") String batch,
            @QueryParam("wait") String wait, @QueryParam("timeout") String timeout,
            @QueryParam("consumerGroup") String group, @QueryParam("autoAck") String autoAck,
            @QueryParam("subscriptionMode") String subMode, @QueryParam("subscriptionFrom") String subFrom,
            @QueryParam("partitions") String partitions, @Context RoutingContext ctx) {
        return answer(PopRequest.parse(config, queue, null, null, null, batch, wait, timeout, group, autoAck, subMode,
                subFrom, partitions), ctx);
    }

    @Access(Access.Level.WRITE)
    @GET
    @RunOnVirtualThread
    public Response discover(@QueryParam("namespace") String namespace, @QueryParam("task") String task,
            @QueryParam("batch") String batch, @QueryParam("wait") String wait, @QueryParam("timeout") String timeout,
            @QueryParam("consumerGroup") String group, @QueryParam("autoAck") String autoAck,
            @QueryParam("subscriptionMode") String subMode, @QueryParam("subscriptionFrom") String subFrom,
            @QueryParam("partitions") String partitions, @Context RoutingContext ctx) {
        PopRequest.requireNamespaceOrTask(namespace, task);
        return answer(PopRequest.parse(config, null, null, namespace, task, batch, wait, timeout, group, autoAck,
                subMode, subFrom, partitions), ctx);
    }

    private Response answer(PopRequest r, RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (!r.longPoll()) {
            return serve(r, request);
        }
        SocketAddress from = request.remoteAddress();
        try (ParkingBudget.Place place = parking.admit(from == null ? null : from.hostAddress())) {
            if (place == null) {
                // over the cap of waiting long polls: "nothing" at once (a 4xx would end a consume loop), and an
                // HTTP/1.1 connection is let go so that refused polls do not hold connections either
                Response.ResponseBuilder rb = Response.noContent().header("Retry-After", "1");
                if (request.version() != HttpVersion.HTTP_2) {
                    rb.header("Connection", "close");
                    ctx.addEndHandler(done -> request.connection().close());
                }
                return rb.build();
            }
            return serve(r, request);
        }
    }

    private Response serve(PopRequest r, HttpServerRequest request) {
        Span span = tracing.start("queen pop", SpanKind.SERVER, request.getHeader("traceparent"));
        return BrokerTracing.within(span, () -> serve(r, request, span));
    }

    private Response serve(PopRequest r, HttpServerRequest request, Span span) {
        HttpServerResponse response = request.response();
        if (switches.popMaintenance()) {
            r = holdDuringMaintenance(r, response);
            if (r == null) {
                return Response.noContent().build();
            }
        }
        java.util.UUID tenant = callers.tenant();
        PopService.Result res = service.pop(tenant, r, response::closed);
        if (res == null) {
            return Response.noContent().build();
        }
        if (span.isRecording()) {
            span.setAttribute(BrokerTracing.OPERATION, "receive").setAttribute(BrokerTracing.DESTINATION, res.queue())
                    .setAttribute(BrokerTracing.GROUP, res.group()).setAttribute(BrokerTracing.COUNT, res.messages());
        }
        // who took the lease, for the console's member list: kept in memory (bounded), no database write
        clients.popped(tenant, res.queue(), res.group(), res.leaseId(), request.remoteAddress(),
                request.getHeader("User-Agent"));
        return Response.ok(res.body(), MediaType.APPLICATION_JSON_TYPE).build();
    }
}
