package io.queen.kafka;

/**
 * Who a Kafka request acts for: the tenant its topics and groups belong to, the client's {@code client.id} and
 * its address. Immutable.
 *
 * @param tenant     the tenant (UUID text); the default tenant while authentication is off
 * @param clientId   the request header's client id (empty when the client sent none)
 * @param clientHost the client's IP address
 */
public record KafkaCaller(String tenant, String clientId, String clientHost) {
}
