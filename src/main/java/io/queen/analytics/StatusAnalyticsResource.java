package io.queen.analytics;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.QueryParams;
import io.queen.api.Times;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * {@code GET /api/v1/status/analytics} (API spec 4.7): messages pushed per {@code interval} ({@code minute},
 * {@code hour} or {@code day}; default hour) between {@code from} (default now - 24 h) and {@code to}, optionally
 * for one {@code queue} or the queues of a {@code namespace}/{@code task}; every interval of the window has a
 * point (0 when nothing was pushed). An interval too fine for the window (over {@link TimeRange#MAX_POINTS}
 * points) is widened to the next one; {@code interval} in the answer says which was used. Stateless.
 */
@Path("/api/v1/status/analytics")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class StatusAnalyticsResource {
    @Inject AnalyticsReads reads;
    @Inject Callers callers;

    @GET
    public Response analytics(@QueryParam("interval") String intervalParam, @QueryParam("from") String from,
            @QueryParam("to") String to, @QueryParam("queue") String queue, @QueryParam("namespace") String namespace,
            @QueryParam("task") String task) throws SQLException {
        TimeRange r = TimeRange.parse(from, to, Duration.ofHours(24));
        String interval = QueryParams.blankToNull(intervalParam) == null ? "hour" : intervalParam.strip();
        int minutes = switch (interval) {
            case "minute" -> 1;
            case "hour" -> 60;
            case "day" -> 1440;
            default -> throw ApiException.badRequest("interval must be minute, hour or day");
        };
        long span = Math.max(1, Duration.between(r.from(), r.to()).toMinutes());
        while (span / minutes > TimeRange.MAX_POINTS && minutes < 1440) {
            minutes = minutes == 1 ? 60 : 1440;
        }
        interval = minutes == 1 ? "minute" : minutes == 60 ? "hour" : "day";
        String q = QueryParams.blankToNull(queue);
        String ns = QueryParams.blankToNull(namespace);
        String tk = QueryParams.blankToNull(task);
        String unit = interval;
        UUID tenant = callers.tenant();
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.set("dataPoints", reads.rows("WITH m AS (SELECT date_trunc(?, bucket, 'UTC') AS t, sum(push_messages) AS n"
                + " FROM queen.metrics_queue_minute m WHERE bucket >= date_trunc(?, ?::timestamptz, 'UTC') AND bucket <= ?"
                + " AND m.tenant_id = ? AND (?::text IS NULL OR queue_name = ?::text)"
                + " AND (?::text IS NULL AND ?::text IS NULL OR EXISTS (SELECT 1 FROM queen.queues qq"
                + " WHERE qq.tenant_id = ? AND qq.name = m.queue_name AND (?::text IS NULL OR qq.namespace = ?::text)"
                + " AND (?::text IS NULL OR qq.task = ?::text))) GROUP BY 1)"
                + " SELECT g AS timestamp, COALESCE(m.n, 0)::bigint AS messages"
                + " FROM generate_series(date_trunc(?, ?::timestamptz, 'UTC'), ?::timestamptz, make_interval(mins => ?)) g"
                + " LEFT JOIN m ON m.t = g ORDER BY g",
                unit, unit, r.fromMinute(), r.toTime(), tenant, q, q, ns, tk, tenant, ns, ns, tk, tk,
                unit, r.fromMinute(), r.toTime(), minutes));
        out.put("interval", interval);
        out.put("from", Times.millis(r.from()));
        out.put("to", Times.millis(r.to()));
        return Json.ok(out);
    }
}
