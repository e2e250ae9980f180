package io.queen.kafka.transport;

import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Serves one API key a connection's requests at a time, as many as queued up while the previous batch ran
 * ({@link KafkaApis#serveCoalesced}): one answer per call, in the calls' order, each as a {@link KafkaHandler}
 * answers (a failed stage is answered with the API's own error response). Runs on a virtual thread.
 *
 * @param <Q> the request data class ({@code XxxRequestData})
 */
@FunctionalInterface
public interface KafkaBatchHandler<Q extends ApiMessage> {
    List<? extends CompletionStage<? extends ApiMessage>> handle(List<KafkaCall<Q>> calls) throws Exception;
}
