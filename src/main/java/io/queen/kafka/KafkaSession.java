package io.queen.kafka;

/**
 * What one connection knows about its client: the address and, per request, the client id. Confined to the
 * connection's event-loop thread except for {@link #caller}, which builds an immutable {@link KafkaCaller}.
 */
final class KafkaSession {
    private final String clientHost;
    private volatile String tenant;

    KafkaSession(String clientHost, String tenant) {
        this.clientHost = clientHost;
        this.tenant = tenant;
    }

    String clientHost() {
        return clientHost;
    }

    /** The caller of one request of this connection. */
    KafkaCaller caller(String clientId) {
        return new KafkaCaller(tenant, clientId == null ? "" : clientId, clientHost);
    }
}
