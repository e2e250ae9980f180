package io.queen.status;

import jakarta.inject.Inject;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.ApiException;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.compaction.CompactionSettings;
import io.queen.compaction.CompactionStore;
import io.queen.config.QueenConfig;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code GET /api/v1/resources/queues/:queue} (API spec 4.1): one queue with every partition's figures, its
 * effective configuration (the options object of {@code /configure}), {@code storage:"segments"}, and what compaction
 * did to the queue and each partition ({@code compaction}). Shares its
 * path with {@code queue.QueueDeleteResource} (DELETE). Stateless, thread-safe.
 */
@Path("/api/v1/resources/queues/{queue}")
@Access(Access.Level.READ)
@RunOnVirtualThread
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {
    @Inject StatusStore store;
    @Inject Callers callers;
    @Inject StatusSnapshots snapshots;
    @Inject CompactionSettings compaction;
    @Inject CompactionStore compactionStore;
    @Inject QueenConfig config;

    @GET
    public Response get(@PathParam("queue") String name) throws SQLException {
        UUID tenant = callers.tenant();
        return snapshots.serve(tenant, StatusSnapshots.key("resources/queue", name), () -> {
            StatusStore.Queue q = requireQueue(store, tenant, name);
            List<StatusStore.PartitionRow> parts = store.partitions(q.id());
            ObjectNode out = StatusJson.queueHead(Json.MAPPER.createObjectNode(), q);
            out.put("storage", "segments");
            out.set("config", q.config());
            ObjectNode compacted = out.putObject("compaction");
            compacted.setAll((ObjectNode) Json.MAPPER.valueToTree(compaction.wireView(tenant, q.name(), q.id())));
            Map<UUID, CompactionStore.State> states = compactionStore.states(q.id());
            Map<UUID, CompactionStore.Partition> listed = new HashMap<>();
            for (CompactionStore.Partition p : compactionStore.partitions(Instant.now(),
                    CompactionStore.Defaults.of(config.compaction()), q.id())) {
                listed.put(p.partitionId(), p);
            }
            compacted.put("recordsRemoved", states.values().stream().mapToLong(CompactionStore.State::recordsRemoved).sum());
            compacted.put("bytesRemoved", states.values().stream().mapToLong(CompactionStore.State::bytesRemoved).sum());
            ArrayNode ps = out.putArray("partitions");
            for (StatusStore.PartitionRow p : parts) {
                ObjectNode o = StatusJson.partitionHead(ps, p);
                o.set("stats", StatusJson.messages(p.figures()));
                o.put("oldestMessage", Times.millis(p.oldestAt()));
                o.put("newestMessage", Times.millis(p.newestAt()));
                // the watermarks: live offsets are logStart..lastOffset (empty when lastOffset < logStart)
                o.put("logStart", p.logStart());
                o.put("lastOffset", p.lastOffset());
                o.set("compaction", compactionJson(states.get(p.id()), listed.get(p.id())));
            }
            out.set("totals", StatusJson.messages(sum(parts)));
            return out;
        });
    }

    /**
     * A partition's compaction: what passes did ({@code state}, null before the first) and how dirty it is now
     * ({@code listed}, null unless its queue is compacted and it holds records); null when it has neither.
     */
    private static ObjectNode compactionJson(CompactionStore.State state, CompactionStore.Partition listed) {
        if (state == null && listed == null) {
            return null;
        }
        ObjectNode o = Json.MAPPER.createObjectNode();
        if (state == null) {
            o.putNull("cleanedTo");
            o.putNull("cleanedAt");
        } else {
            o.put("cleanedTo", state.cleanedTo());
            o.put("cleanedAt", Times.millis(state.cleanedAt()));
        }
        o.put("keptRecords", state == null ? 0 : state.cleanRecords());
        o.put("recordsRemoved", state == null ? 0 : state.recordsRemoved());
        o.put("bytesRemoved", state == null ? 0 : state.bytesRemoved());
        if (listed != null) {
            o.put("dirtyRatio", listed.dirtyRatio());
            o.put("lagMs", listed.lagMs());
            o.put("due", listed.due());
        }
        return o;
    }

    static StatusStore.Queue requireQueue(StatusStore store, UUID tenant, String name) throws SQLException {
        StatusStore.Queue q = StatusJson.storable(name) ? store.queue(tenant, name) : null;
        if (q == null) {
            throw ApiException.notFound("Queue not found");
        }
        return q;
    }

    static StatusStore.Figures sum(List<StatusStore.PartitionRow> parts) {
        long t = 0, pe = 0, pr = 0, c = 0, f = 0, d = 0;
        for (StatusStore.PartitionRow p : parts) {
            StatusStore.Figures x = p.figures();
            t += x.total();
            pe += x.pending();
            pr += x.processing();
            c += x.completed();
            f += x.failed();
            d += x.deadLetter();
        }
        return new StatusStore.Figures(t, pe, pr, c, f, d);
    }
}
