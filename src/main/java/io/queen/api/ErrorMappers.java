package io.queen.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.queen.metrics.OpsMeter;
import jakarta.inject.Inject;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The one error shape: {@code {"error": "..."}} with the status the API spec gives. Bad input is 400, unknown
 * things 404, an unreachable database 503 with a retry hint, anything unexpected 500 with no stack trace on the
 * wire (it is logged instead).
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
        return error(400, "Invalid JSON: " + e.getOriginalMessage());
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
        if (status >= 500) {
            LOG.error("request failed", e);
            return error(status, "Internal error");
        }
        return error(status, e.getMessage() == null ? "Bad request" : e.getMessage());
    }

    @ServerExceptionMapper
    public Response sql(SQLException e) {
        meter.unattributed().increment(OpsMeter.DB_ERRORS);
        if (isUnavailable(e)) {
            LOG.warnf("database unavailable: %s", e.getMessage());
            return Response.fromResponse(error(503, "Database unavailable, retry later")).header("Retry-After", "1")
                    .build();
        }
        LOG.error("database error", e);
        return error(500, "Database error: " + e.getMessage());
    }

    @ServerExceptionMapper
    public Response other(RuntimeException e) {
        Throwable c = e.getCause();
        if (c instanceof SQLException s) {
            return sql(s);
        }
        LOG.error("request failed", e);
        return error(500, "Internal error: " + e.getClass().getSimpleName());
    }

    /** Connection-level trouble (SQLSTATE class 08, 57P0x shutdown, pool timeout): worth a client retry. */
    public static boolean isUnavailable(SQLException e) {
        if (e instanceof SQLTransientConnectionException) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("57P"))) {
                return true;
            }
        }
        return e.getMessage() != null && e.getMessage().contains("Acquisition timeout");
    }
}
