package io.queen.kafka;

import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeProducers: per partition, the producers Queen keeps state for there, which are the transactional
 * producers whose open transaction added the partition ({@code queen.kafka_partition_producers_v1}): producer id,
 * epoch, the last sequence staged for the partition (-1 before the first batch) and when the transaction last
 * staged a batch or changed state. An idempotent producer outside a transaction leaves no per-partition state (its
 * retries are recognised by the dedup of its records' transaction ids), so it is not listed, nor is a transactional
 * producer between transactions. Coordinator epoch and current transaction start offset are -1: a transaction's
 * records get their offsets when it commits. Answered by any broker (the state is in PostgreSQL); an unknown topic
 * or partition is UNKNOWN_TOPIC_OR_PARTITION for that partition. Stateless, thread-safe.
 */
@ApplicationScoped
class DescribeProducersApi implements KafkaApiProvider {
    private final Topics topics;
    private final KafkaStore store;

    DescribeProducersApi(Topics topics, KafkaStore store) {
        this.topics = topics;
        this.store = store;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.DESCRIBE_PRODUCERS, 0, (KafkaHandler<DescribeProducersRequestData>) (c, v, r) ->
                TopicApis.done(describe(c, r)));
    }

    DescribeProducersResponseData describe(KafkaCaller caller, DescribeProducersRequestData request)
            throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        Map<String, KafkaStore.Topic> found = topics.lookup(tenant, request.topics(), TopicRequest::name, false);
        DescribeProducersResponseData out = new DescribeProducersResponseData();
        for (TopicRequest rt : request.topics()) {
            TopicResponse tr = new TopicResponse().setName(rt.name());
            out.topics().add(tr);
            KafkaStore.Topic t = found.get(rt.name());
            for (int p : rt.partitionIndexes()) {
                PartitionResponse pr = new PartitionResponse().setPartitionIndex(p);
                tr.partitions().add(pr);
                if (t == null || p < 0 || p >= t.partitions()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage(Errors.UNKNOWN_TOPIC_OR_PARTITION.message());
                    continue;
                }
                for (KafkaStore.PartitionProducer s : store.partitionProducers(tenant, t.name(), Integer.toString(p))) {
                    pr.activeProducers().add(new ProducerState().setProducerId(s.producerId())
                            .setProducerEpoch(s.epoch()).setLastSequence(s.lastSequence())
                            .setLastTimestamp(s.lastTimestampMs()).setCoordinatorEpoch(-1)
                            .setCurrentTxnStartOffset(-1));
                }
            }
        }
        return out;
    }
}
