package io.queen.analytics;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.metrics.ProcessStats;
import io.queen.workers.WorkerRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.lang.management.MemoryUsage;

/**
 * {@code GET /metrics} (API spec 4.14): this broker's vital signs as JSON in the reference shape. Request and
 * message counts are this broker's since start as of the last metrics flush (at most one flush interval old);
 * rates are per second over the last flush interval. Node's {@code external}/{@code arrayBuffers} map to JVM
 * non-heap and direct-buffer memory; {@code cpu} is process CPU time in microseconds. Reads no database.
 * Stateless.
 */
@Path("/metrics")
@Access(Access.Level.PUBLIC)
@Produces(MediaType.APPLICATION_JSON)
public class MetricsJsonResource {
    @Inject MetricsFlusher flusher;
    @Inject ProcessStats process;
    @Inject WorkerRegistry worker;

    @GET
    public Response metrics() {
        MetricsFlusher.Lifetime life = flusher.lifetime();
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("uptime", Math.round(process.uptimeSeconds()));
        out.putObject("requests").put("total", life.requests()).put("rate", round(life.requestRate()));
        out.putObject("messages").put("total", life.messages()).put("rate", round(life.messageRate()));
        out.putObject("database").put("poolSize", process.poolMax()).put("idleConnections", process.poolIdle())
                .put("waitingRequests", process.poolWaiting()).put("activeConnections", process.poolActive());
        MemoryUsage heap = process.heap();
        out.putObject("memory").put("rss", process.memoryBytes()[0]).put("heapTotal", heap.getCommitted())
                .put("heapUsed", heap.getUsed()).put("external", process.nonHeap().getUsed())
                .put("arrayBuffers", MetricsFlusher.directBytes());
        long[] cpu = process.cpuMicros();
        out.putObject("cpu").put("user", cpu[0]).put("system", cpu[1]);
        out.put("hostname", process.hostname());
        out.put("workerId", worker.workerIdOrNull());
        out.put("port", worker.port());
        return Json.ok(out);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
