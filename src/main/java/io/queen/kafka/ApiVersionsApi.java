package io.queen.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** ApiVersions: the ranges of every API this listener serves (the dispatch table). Stateless, thread-safe. */
@ApplicationScoped
class ApiVersionsApi implements KafkaApiProvider {
    private final KafkaListener listener;

    ApiVersionsApi(KafkaListener listener) {
        this.listener = listener;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.API_VERSIONS, 4, (KafkaHandler<ApiVersionsRequestData>) (caller, version, request) ->
                CompletableFuture.completedFuture(new ApiVersionsResponseData().setErrorCode(Errors.NONE.code())
                        .setApiKeys(listener.apis().versions())));
    }
}
