package io.queen.kafka;

import io.queen.browse.OffsetReader;
import io.queen.browse.ReadStore;
import io.queen.config.QueenConfig;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ListOffsetsRequest;

/**
 * Fetch and ListOffsets: the non-destructive read by offset ({@link OffsetReader}, the same read and long poll as
 * {@code POST /api/v1/fetch}), answered as uncompressed v2 record batches. No fetch sessions (every fetch is a
 * full one, session id 0); {@code max.wait.ms} parks on the pops' wake-ups, bounded by the pop timeout cap and the
 * parking caps. Stateless, thread-safe.
 */
@ApplicationScoped
class FetchApi implements KafkaApiProvider {
    static final int MAX_RECORDS = 10_000;
    /** ListOffsets by a timestamp later than this (the end of the year 9999) finds no record without looking. */
    static final long LATEST_SEARCHED_MS = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    private final Topics topics;
    private final KafkaStore store;
    private final OffsetReader reader;
    private final RecordBatches batches;
    private final long maxWaitMs;

    FetchApi(Topics topics, KafkaStore store, OffsetReader reader, RecordBatches batches, QueenConfig config) {
        this.topics = topics;
        this.store = store;
        this.reader = reader;
        this.batches = batches;
        this.maxWaitMs = config.pop().maxTimeoutMs();
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.FETCH, 12, (KafkaHandler<FetchRequestData>) (c, v, r) -> TopicApis.done(fetch(c, r)))
                .serve(ApiKeys.LIST_OFFSETS, 11, (KafkaHandler<ListOffsetsRequestData>) (c, v, r) ->
                        TopicApis.done(listOffsets(c, r)));
    }

    FetchResponseData fetch(KafkaCaller caller, FetchRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        FetchResponseData out = new FetchResponseData().setSessionId(0);
        Map<String, KafkaStore.Topic> found = topics.lookupRecent(tenant, request.topics(),
                FetchRequestData.FetchTopic::topic,
                ft -> ft.partitions().stream().mapToInt(FetchRequestData.FetchPartition::partition).max().orElse(-1),
                false);
        List<PartitionData> answers = new ArrayList<>();
        List<String> queues = new ArrayList<>();
        List<String> partitions = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        List<Integer> maxBytes = new ArrayList<>();
        for (FetchRequestData.FetchTopic ft : request.topics()) {
            FetchableTopicResponse tr = new FetchableTopicResponse().setTopic(ft.topic());
            out.responses().add(tr);
            KafkaStore.Topic topic = found.get(ft.topic());
            for (FetchRequestData.FetchPartition fp : ft.partitions()) {
                PartitionData pd = new PartitionData().setPartitionIndex(fp.partition()).setHighWatermark(-1)
                        .setRecords(MemoryRecords.EMPTY);
                tr.partitions().add(pd);
                if (topic == null || fp.partition() < 0 || fp.partition() >= topic.partitions()) {
                    pd.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                answers.add(pd);
                queues.add(ft.topic());
                partitions.add(Integer.toString(fp.partition()));
                offsets.add(fp.fetchOffset());
                maxBytes.add(Math.max(1, fp.partitionMaxBytes()));
            }
        }
        long budget = Math.max(1, request.maxBytes());
        List<ReadStore.FetchRow> rows = reader.read(tenant, caller.clientHost(), queues.toArray(new String[0]),
                partitions.toArray(new String[0]), offsets.toArray(new Long[0]), maxBytes.toArray(new Integer[0]),
                budget, MAX_RECORDS, Math.min(Math.max(0, request.maxWaitMs()), maxWaitMs),
                Math.max(0, request.minBytes()));
        List<List<ReadStore.Segment>> segments = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++) {
            segments.add(new ArrayList<>());
        }
        for (ReadStore.FetchRow r : rows) {
            PartitionData pd = answers.get(r.ordinal());
            pd.setHighWatermark(r.highWatermark()).setLastStableOffset(r.highWatermark())
                    .setLogStartOffset(r.logStart());
            if (r.error() != null) {
                pd.setErrorCode(Errors.forCode(errorCode(r.error())).code());
            }
            if (r.segment() != null) {
                segments.get(r.ordinal()).add(r.segment());
            }
        }
        long left = budget;
        for (int i = 0; i < answers.size(); i++) {
            if (!segments.get(i).isEmpty()) {
                MemoryRecords records = batches.build(segments.get(i), offsets.get(i), maxBytes.get(i), left, null);
                left -= records.sizeInBytes();
                answers.get(i).setRecords(records);
            }
        }
        return out;
    }

    private static short errorCode(String error) {
        return switch (error) {
            case "OFFSET_OUT_OF_RANGE" -> Errors.OFFSET_OUT_OF_RANGE.code();
            case "UNKNOWN_TOPIC_OR_PARTITION" -> Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
            default -> Errors.UNKNOWN_SERVER_ERROR.code();
        };
    }

    ListOffsetsResponseData listOffsets(KafkaCaller caller, ListOffsetsRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        ListOffsetsResponseData out = new ListOffsetsResponseData();
        Map<String, KafkaStore.Topic> found = topics.lookup(tenant, request.topics(),
                ListOffsetsRequestData.ListOffsetsTopic::name, false);
        List<ListOffsetsPartitionResponse> answers = new ArrayList<>();
        List<Long> timestamps = new ArrayList<>();
        List<String> queues = new ArrayList<>();
        List<String> partitions = new ArrayList<>();
        for (ListOffsetsRequestData.ListOffsetsTopic lt : request.topics()) {
            ListOffsetsTopicResponse tr = new ListOffsetsTopicResponse().setName(lt.name());
            out.topics().add(tr);
            KafkaStore.Topic topic = found.get(lt.name());
            for (ListOffsetsRequestData.ListOffsetsPartition lp : lt.partitions()) {
                ListOffsetsPartitionResponse pr = new ListOffsetsPartitionResponse()
                        .setPartitionIndex(lp.partitionIndex());
                tr.partitions().add(pr);
                if (topic == null || lp.partitionIndex() < 0 || lp.partitionIndex() >= topic.partitions()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                answers.add(pr);
                timestamps.add(lp.timestamp());
                queues.add(lt.name());
                partitions.add(Integer.toString(lp.partitionIndex()));
            }
        }
        if (answers.isEmpty()) {
            return out;
        }
        List<KafkaStore.Watermarks> marks = store.watermarks(tenant, queues.toArray(new String[0]),
                partitions.toArray(new String[0]));
        for (int i = 0; i < answers.size(); i++) {
            ListOffsetsPartitionResponse pr = answers.get(i);
            KafkaStore.Watermarks m = marks.get(i);
            long ts = timestamps.get(i);
            if (ts == ListOffsetsRequest.EARLIEST_TIMESTAMP || ts == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
                pr.setOffset(m.logStart()).setTimestamp(-1);
            } else if (ts == ListOffsetsRequest.LATEST_TIMESTAMP || ts == ListOffsetsRequest.LATEST_TIERED_TIMESTAMP) {
                pr.setOffset(m.high()).setTimestamp(-1);
            } else if (ts == ListOffsetsRequest.MAX_TIMESTAMP) {
                // the newest record stands for the largest timestamp (records keep the producer's timestamps,
                // which need not grow)
                pr.setOffset(m.high() > m.logStart() ? m.high() - 1 : -1).setTimestamp(-1);
            } else if (ts > LATEST_SEARCHED_MS) {
                // past any commit time, and past the dates a PostgreSQL timestamp holds: no record is that late
                pr.setOffset(-1).setTimestamp(-1);
            } else if (ts >= 0) {
                long[] at = store.offsetForTime(tenant, queues.get(i), partitions.get(i), Instant.ofEpochMilli(ts));
                pr.setOffset(at == null ? -1 : at[0]).setTimestamp(at == null ? -1 : at[1]);
            } else {
                pr.setErrorCode(Errors.INVALID_REQUEST.code());
            }
        }
        return out;
    }
}
