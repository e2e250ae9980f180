package io.queen.http;

import io.vertx.ext.web.Route;

/**
 * The broker's handlers on the Vert.x router, in the order a request meets them. Where a stage sits here is where
 * its routes sit in the router ({@link #order()} is derived from the position), so the order is decided here and
 * nowhere else; the routes one stage holds keep the order their owner adds them in. Every stage comes before
 * whatever Quarkus installs (its CORS filter at -300, RESTEasy Reactive's and the HTTP server's handlers, static
 * files, the JAX-RS resources). Once a JAX-RS resource matched, its request filters run in {@link FilterPriority}
 * order. docs/architecture.md ("The HTTP pipeline") shows the whole order.
 */
public enum PipelineStage {
    /**
     * {@link io.queen.api.RouterErrors}' failure handler: a failure raised outside the resources (a body over the
     * limit, an exception in a route handler) is answered in the API's JSON error shape. Failure handlers form a
     * chain of their own, which a request that has not failed never meets; first in it, ahead of Quarkus' defaults
     * at the router's end, which answer with no body (or a 500's details).
     */
    FAILURE_ANSWERS,
    /**
     * {@link io.queen.schema.SchemaGate}: while the schema is not applied, {@code /api/} and {@code /streams/} answer
     * 503 with the reason. First of the request's stages: no route can work without the schema, and the answer is
     * the same whatever the request carries (a non-JSON or oversized body gets the 503 too). The answer does no
     * work, so admission does not count it.
     */
    SCHEMA_GATE,
    /**
     * {@link io.queen.api.RouterErrors}' request checks: {@code Accept} dropped on the broker's own routes, a
     * declared Content-Length over the limit answered 413, a non-JSON body 415 (authentication off; on, the access
     * filter answers it after the caller). Before any body byte is read. Before admission: these answers do no
     * work, so a draining broker still gives them and need not wait for them.
     */
    REQUEST_CHECKS,
    /**
     * {@link io.queen.console.ConsoleHeaders}: the security headers of the console's static files. It answers
     * nothing and only those paths pass through it; before admission, so a draining broker's 503 carries them.
     */
    CONSOLE_HEADERS,
    /**
     * {@link io.queen.shutdown.AdmissionGate}: counts the request until it ends, or refuses it (503,
     * {@code Connection: close}) once the broker drains. The last stage before any work: everything after it
     * (reading a body, running a resource) is counted, so the drain waits for it, and a refused request's body is
     * never read.
     */
    ADMISSION,
    /**
     * {@link io.queen.api.WholeBodyReader}: the body of the hot write routes read whole on the event loop before the
     * resource runs. After admission (see there), and after the request checks refused a declared length over the
     * limit.
     */
    WHOLE_BODY,
    /**
     * {@link io.queen.api.WholeBodyReader}: an empty body read whole leaves no buffer behind; it is given an empty
     * one here, right after the read, so the resource does not wait for body events already consumed.
     */
    EMPTY_BODY;

    /** Route metadata naming the stage a route belongs to (for a listing of the router's routes). */
    public static final String METADATA = "queen.pipeline.stage";
    /** Room between two stages' orders. */
    private static final int STEP = 10;

    /** This stage's route order: the router runs lower orders first. */
    public int order() {
        return Integer.MIN_VALUE + ordinal() * STEP;
    }

    /**
     * {@code route} placed at this stage: its order, and the stage under {@link #METADATA} (nothing on a request's
     * path reads it). Call before adding the route's handler, which fixes its place in the router.
     */
    public Route on(Route route) {
        return route.order(order()).putMetadata(METADATA, this);
    }
}
