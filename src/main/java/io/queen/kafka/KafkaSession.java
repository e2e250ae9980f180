package io.queen.kafka;

import java.util.concurrent.CompletableFuture;

/**
 * What one connection knows about its client: the address and, per request, the client id, and the chain that
 * keeps its in-order requests in order. Confined to the connection's event-loop thread except for
 * {@link #caller}, which builds an immutable {@link KafkaCaller}.
 */
final class KafkaSession {
    private final String clientHost;
    private volatile String tenant;
    /** The call of this connection's latest in-order request (event-loop thread only). */
    private CompletableFuture<?> lastOrderedCall =
            CompletableFuture.completedFuture(null);

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

    /** The caller of one request of this connection. */
    KafkaCaller caller(String clientId) {
        return new KafkaCaller(tenant, clientId == null ? "" : clientId, clientHost);
    }
}
