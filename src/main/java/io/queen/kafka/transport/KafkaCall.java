package io.queen.kafka.transport;

import org.apache.kafka.common.protocol.ApiMessage;

/** One request as a {@link KafkaBatchHandler} gets it: who sent it, in which version, what it asks. */
public record KafkaCall<Q extends ApiMessage>(KafkaCaller caller, short apiVersion, Q request) {
}
