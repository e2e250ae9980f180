package io.queen.kafka.transport;

import io.queen.auth.Caller;
import io.queen.auth.Role;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What one connection knows about its client: the address and, per request, the client id, and the chain that
 * keeps its in-order requests in order. Confined to the connection's event-loop thread except for
 * {@link #caller}, which builds an immutable {@link KafkaCaller}.
 */
final class KafkaSession {
    private final String clientHost;
    private volatile String tenant;
    private volatile String subject;
    private volatile Role role;
    private volatile boolean authenticated;
    /** The SASL mechanism the handshake chose (event-loop thread only). */
    private String mechanism;
    /** A SaslHandshake v0 was accepted: the next frame is a raw SASL token (event-loop thread only). */
    private boolean rawTokenNext;
    /** The call of this connection's latest in-order request (event-loop thread only). */
    private CompletableFuture<?> lastOrderedCall =
            CompletableFuture.completedFuture(null);

    /** The connection's coalesced keys' queues, made on their first request (event-loop thread only). */
    private final Map<ApiKeys, CoalescedCalls> coalesced = new EnumMap<>(ApiKeys.class);

    KafkaSession(String clientHost, String tenant) {
        this.clientHost = clientHost;
        this.tenant = tenant;
    }

    String clientHost() {
        return clientHost;
    }

    /** Makes {@code call} the latest in-order call and returns the one before it. Event-loop thread only. */
    CompletableFuture<?> chainOrdered(CompletableFuture<?> call) {
        CompletableFuture<?> previous = lastOrderedCall;
        lastOrderedCall = call;
        return previous;
    }

    /** The queue of this connection's requests of {@code key}, made by {@code make} on its first one. */
    CoalescedCalls coalesced(ApiKeys key, Function<ApiKeys, CoalescedCalls> make) {
        return coalesced.computeIfAbsent(key, make);
    }

    /** The caller of one request of this connection. */
    KafkaCaller caller(String clientId) {
        return new KafkaCaller(tenant, clientId == null ? "" : clientId, clientHost, subject, role);
    }

    boolean authenticated() {
        return authenticated;
    }

    /** From now on the connection's requests act for this caller. */
    void authenticate(Caller caller) {
        tenant = caller.tenant().toString();
        subject = caller.subject();
        role = caller.role();
        authenticated = true;
    }

    String mechanism() {
        return mechanism;
    }

    void mechanism(String m) {
        mechanism = m;
    }

    void rawTokenNext() {
        rawTokenNext = true;
    }

    /** Whether the next frame is a raw SASL token; asking clears it. Event-loop thread only. */
    boolean expectsRawToken() {
        boolean next = rawTokenNext;
        rawTokenNext = false;
        return next;
    }
}
