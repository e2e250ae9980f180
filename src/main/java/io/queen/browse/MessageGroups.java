package io.queen.browse;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.api.Times;
import io.queen.live.LiveBoard;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * One message's status for every consumer group of its queue, from one read of the cursors and dead letters
 * ({@link ReadStore#groupHolds}): {@code dead-lettered} when the group filed it (its newest letter of that offset),
 * else {@code acked} when the group's committed offset is at or past it, else {@code leased} when a live lease's
 * span reaches it (with the lease and, from the brokers' live publications, the client that took it), else
 * {@code pending}. A group with no cursor on the message's partition has consumed nothing there: pending.
 * Stateless, thread-safe.
 */
@ApplicationScoped
public class MessageGroups {
    @Inject MessageBrowser browser;
    @Inject ReadStore store;
    @Inject LiveBoard live;

    /** The answer of {@code GET /api/v1/messages/:p/:t/groups}, or null when the tenant has no such message. */
    public ObjectNode of(UUID tenant, UUID pid, String transactionId) throws SQLException {
        MessageBrowser.Position at = browser.position(tenant, pid, transactionId);
        if (at == null) {
            return null;
        }
        long offset = at.offset();
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("partitionId", pid.toString());
        out.put("transactionId", transactionId);
        out.put("queue", at.partition().queue());
        out.put("partition", at.partition().partition());
        out.put("offset", offset);
        ArrayNode groups = out.putArray("groups");
        Map<String, LiveBoard.Clients> clients = new HashMap<>();
        for (ReadStore.GroupHold g : store.groupHolds(pid, offset)) {
            ObjectNode o = groups.addObject();
            o.put("group", g.group());
            boolean leased = g.leasedUpTo() != null && offset > g.committed() && offset <= g.leasedUpTo();
            o.put("status", g.deadLetterId() != null ? "dead-lettered"
                    : g.hasCursor() && offset <= g.committed() ? "acked" : leased ? "leased" : "pending");
            if (g.hasCursor()) {
                o.put("committedOffset", g.committed());
            } else {
                o.putNull("committedOffset");
            }
            if (leased && g.deadLetterId() == null) {
                ObjectNode l = o.putObject("lease");
                l.put("leaseId", g.leaseId());
                l.put("acquiredAt", Times.millis(g.leaseAcquiredAt()));
                l.put("expiresAt", Times.millis(g.leaseExpiresAt()));
                l.put("leasedUpTo", g.leasedUpTo());
                LiveBoard.Clients c = clients.get(g.group());
                if (c == null) {
                    c = live.clients(tenant, g.group());
                    clients.put(g.group(), c);
                }
                ObjectNode client = g.leaseId() == null ? null : c.leases().get(g.leaseId());
                l.put("address", client == null ? null : client.path("address").asText(null));
                l.put("userAgent", client == null ? null : client.path("userAgent").asText(null));
                l.put("broker", client == null ? null : client.path("broker").asText(null));
            } else {
                o.putNull("lease");
            }
            if (g.deadLetterId() != null) {
                ObjectNode d = o.putObject("deadLetter");
                d.put("id", g.deadLetterId().toString());
                d.put("failedAt", Times.millis(g.failedAt()));
                d.put("errorMessage", g.error() == null || g.error().isEmpty() ? "Retries exhausted" : g.error());
            } else {
                o.putNull("deadLetter");
            }
        }
        return out;
    }
}
