package io.queen.kafka.transport;

import io.queen.auth.Role;

/**
 * Who a Kafka request acts for: the tenant its topics and groups belong to, the client's {@code client.id} and
 * its address, and, once the connection authenticated with SASL, the token's subject and role. Immutable.
 *
 * @param tenant     the tenant (UUID text); the default tenant while authentication is off
 * @param clientId   the request header's client id (empty when the client sent none)
 * @param clientHost the client's IP address
 * @param subject    the token's {@code sub}, or null (no SASL, or a token without it)
 * @param role       the token's role, or null (authentication off)
 */
public record KafkaCaller(String tenant, String clientId, String clientHost, String subject, Role role) {

    /** A caller without a token (authentication off). */
    public KafkaCaller(String tenant, String clientId, String clientHost) {
        this(tenant, clientId, clientHost, null, null);
    }
}
