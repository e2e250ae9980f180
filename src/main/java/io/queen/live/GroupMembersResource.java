package io.queen.live;

import jakarta.inject.Inject;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Input;
import io.queen.api.Json;
import io.queen.auth.Access;
import io.queen.auth.Callers;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

/**
 * {@code GET /api/v1/consumer-groups/:group/members}: who holds the group's leases now (per leased partition: lease
 * id, since, expiry, span, and the client address and user agent that took it when a fresh broker granted it) and
 * which clients popped for the group in the last minutes. The leases are read from the cursor rows, the clients
 * from the brokers' live publications ({@link PopClients}). With the Kafka listener on, a Kafka group of that name
 * coordinated by this broker adds its members (member and client id, host, assigned partitions, since when) from
 * the coordinator's snapshot. Stateless.
 */
@Path("/api/v1/consumer-groups/{group}/members")
@Access(Access.Level.READ)
public class GroupMembersResource {
    @Inject LiveStore store;
    @Inject LiveBoard live;
    @Inject Callers callers;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response members(@PathParam("group") String group) throws SQLException {
        String g = Input.name(group, "group");
        UUID tenant = callers.tenant();
        LiveBoard.Clients clients = live.clients(tenant, g);
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("group", g);
        ArrayNode leases = out.putArray("leases");
        Instant now = Instant.now();
        for (LiveStore.Lease l : store.groupLeases(tenant, g)) {
            ObjectNode o = leases.addObject();
            o.put("queue", l.queue());
            o.put("partition", l.partition());
            o.put("partitionId", l.partitionId().toString());
            o.put("leaseId", l.leaseId());
            o.put("acquiredAt", l.acquiredAt() == null ? null : l.acquiredAt().toString());
            o.put("expiresAt", l.expiresAt().toString());
            o.put("expiresInSeconds", Math.max(0, l.expiresAt().getEpochSecond() - now.getEpochSecond()));
            o.put("committed", l.committed());
            if (l.batchEnd() == null) {
                o.putNull("batchEnd");
            } else {
                o.put("batchEnd", l.batchEnd());
            }
            ObjectNode c = clients.leases().get(l.leaseId());
            o.put("address", c == null ? null : c.path("address").asText(null));
            o.put("userAgent", c == null ? null : c.path("userAgent").asText(null));
            o.put("broker", c == null ? null : c.path("broker").asText(null));
        }
        ArrayNode poppers = out.putArray("poppers");
        clients.poppers().forEach(poppers::add);
        out.set("kafka", kafka(tenant, g));
        return Json.ok(out);
    }

    @Inject KafkaGroupMembers kafkaGroups;

    /** The Kafka group of that name this broker coordinates, or JSON null (listener off, or no such membership). */
    private JsonNode kafka(UUID tenant, String group) {
        ObjectNode k = kafkaGroups.describe(tenant, group);
        return k == null ? NullNode.getInstance() : k;
    }
}
