package io.queen.kafka;

import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.jboss.logging.Logger;

/**
 * DeleteRecords: moves a partition's log start up to the requested offset as retention does, by deleting the
 * whole segments below it ({@code queen.kafka_delete_records_v1}); the answered low watermark is the new log
 * start, which stays below the requested offset when a segment straddles it. Kafka Streams purges its
 * repartition topics this way. An unknown topic or partition answers UNKNOWN_TOPIC_OR_PARTITION, an offset
 * beyond the high watermark (or below -1) OFFSET_OUT_OF_RANGE, each for its own partition. Stateless,
 * thread-safe.
 */
@ApplicationScoped
class DeleteRecordsApi implements KafkaApiProvider {
    private static final Logger LOG = Logger.getLogger(DeleteRecordsApi.class);

    private final Topics topics;
    private final KafkaStore store;

    DeleteRecordsApi(Topics topics, KafkaStore store) {
        this.topics = topics;
        this.store = store;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.DELETE_RECORDS, 2, (KafkaHandler<DeleteRecordsRequestData>) (c, v, r) ->
                TopicApis.done(deleteRecords(c, r)));
    }

    DeleteRecordsResponseData deleteRecords(KafkaCaller caller, DeleteRecordsRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        List<String> names = new ArrayList<>();
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : request.topics()) {
            if (Topics.valid(t.name())) {
                names.add(t.name());
            }
        }
        Map<String, KafkaStore.Topic> found = topics.lookup(tenant, names, false);
        DeleteRecordsResponseData out = new DeleteRecordsResponseData();
        for (DeleteRecordsRequestData.DeleteRecordsTopic rt : request.topics()) {
            DeleteRecordsTopicResult tr = new DeleteRecordsTopicResult().setName(rt.name());
            out.topics().add(tr);
            KafkaStore.Topic t = found.get(rt.name());
            for (DeleteRecordsRequestData.DeleteRecordsPartition rp : rt.partitions()) {
                DeleteRecordsPartitionResult pr = new DeleteRecordsPartitionResult()
                        .setPartitionIndex(rp.partitionIndex()).setLowWatermark(-1);
                tr.partitions().add(pr);
                if (t == null || rp.partitionIndex() < 0 || rp.partitionIndex() >= t.partitions()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                if (rp.offset() < -1) {
                    pr.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                    continue;
                }
                KafkaStore.DeletedRecords d = store.deleteRecords(tenant, rt.name(),
                        Integer.toString(rp.partitionIndex()), rp.offset());
                switch (d.status()) {
                    case "ok" -> pr.setLowWatermark(d.lowWatermark());
                    case "out_of_range" -> pr.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                    default -> pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());  // deleted meanwhile
                }
                LOG.debugf("kafka delete records: tenant=%s topic=%s partition=%d offset=%d status=%s low=%d",
                        tenant, rt.name(), rp.partitionIndex(), rp.offset(), d.status(), d.lowWatermark());
            }
        }
        return out;
    }
}
