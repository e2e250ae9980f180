package io.queen.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.queen.metrics.OpsMeter;
import jakarta.inject.Inject;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The one error shape: {@code {"error": "..."}} with the status the API spec gives. Bad input is 400, unknown
 * things 404, a non-JSON content type 415, an unreachable database or lock contention 503 with
 * {@code Retry-After}, anything unexpected 500 {@code {"error":"Internal error","requestId":"..."}}: the cause is
 * logged with that id, never sent (no SQL text, driver message or stack trace on the wire).
 */
public class ErrorMappers {
    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    @Inject
    OpsMeter meter;

    public static Response error(int status, String message) {
        return Json.response(status, Json.MAPPER.createObjectNode().put("error", message));
    }

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return error(e.status(), e.getMessage());
    }

    @ServerExceptionMapper
    public Response json(JsonProcessingException e) {
        return error(400, InvalidJson.message(e));
    }

    @ServerExceptionMapper
    public Response notFound(NotFoundException e) {
        return error(404, "Not found");
    }

    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e) {
        return error(405, "Method not allowed");
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse() == null ? 500 : e.getResponse().getStatus();
        if (status == 413) {
            return error(413, "Request body too large");
        }
        if (status == 415) {
            return error(415, "Unsupported Media Type: the body must be JSON (Content-Type: application/json)");
        }
        if (status >= 500) {
            return internal(e);
        }
        return error(status, e.getMessage() == null ? "Bad request" : e.getMessage());
    }

    @ServerExceptionMapper
    public Response sql(SQLException e) {
        meter.unattributed().increment(OpsMeter.DB_ERRORS);
        return failure(e);
    }

    @ServerExceptionMapper
    public Response other(Throwable e) {
        if (Failures.clientGone(e)) {
            // the client closed the connection mid-body or before the answer: nobody reads this, nothing failed here
            LOG.debugf("request not completed, the client went away: %s", e.toString());
            return Response.status(499).build();
        }
        if (Failures.bodyTooLarge(e)) {
            // the HTTP server refused a streamed body past the limit: it answered 413 and closes the connection
            LOG.debugf("request body over the limit, refused: %s", e.toString());
            return error(413, "Request body too large");
        }
        return failure(e);
    }

    /** 503 + Retry-After for a transient cause anywhere in the chain, else a 500 naming only a request id. */
    static Response failure(Throwable e) {
        String reason = Failures.unavailableReason(e);
        if (reason != null) {
            LOG.warnf("database unavailable: %s", e.getMessage());
            return unavailable(reason);
        }
        return internal(e);
    }

    public static Response unavailable() {
        return unavailable(Failures.UNAVAILABLE);
    }

    /** 503 with Retry-After and the reason (one of the texts of {@link Failures}, never driver text). */
    public static Response unavailable(String reason) {
        return Response.fromResponse(error(503, reason)).header("Retry-After", Failures.RETRY_AFTER_SECONDS).build();
    }

    /** The answer names a request id; the log line carries it with the cause (never sent to the client). */
    static Response internal(Throwable e) {
        String id = Failures.newRequestId();
        LOG.errorf(e, "request failed, requestId %s", id);
        return Json.response(500, Json.MAPPER.createObjectNode().put("error", Failures.INTERNAL).put("requestId", id));
    }

    /** Connection-level trouble or lock contention: worth a client retry ({@link Failures#isTransient}). */
    public static boolean isUnavailable(SQLException e) {
        return Failures.isTransient(e);
    }
}
