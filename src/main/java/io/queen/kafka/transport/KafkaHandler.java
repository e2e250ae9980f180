package io.queen.kafka.transport;

import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Serves one API key: takes the parsed request body and completes with the response body (never null, except for
 * a produce with {@code acks=0}, which is answered with nothing). Runs on a virtual thread, so it may block on the
 * database; an exception or a failed stage is answered with the API's own error response, the connection stays.
 *
 * @param <Q> the request data class ({@code XxxRequestData})
 */
@FunctionalInterface
public interface KafkaHandler<Q extends ApiMessage> {
    CompletionStage<? extends ApiMessage> handle(KafkaCaller caller, short apiVersion, Q request) throws Exception;
}
