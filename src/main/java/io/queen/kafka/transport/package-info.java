/**
 * The Kafka listener's transport: the server, a connection's framing and SASL, the dispatch table the API providers
 * fill ({@link io.queen.kafka.transport.KafkaApis}) and the session a request carries. It knows no Kafka API's
 * meaning and depends on no other part of {@code io.queen.kafka}.
 */
package io.queen.kafka.transport;
