package io.queen.kafka;

import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.kafka.cluster.ClusterView;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * DescribeLogDirs: one log dir, {@link #LOG_DIR}, holding the partitions this broker leads (Metadata names each
 * partition's leader as its one replica, so the brokers of a cluster list every partition once between them).
 * A partition's size is the bytes its segments take in PostgreSQL, compressed ({@code
 * queen.kafka_partition_sizes_v1}); 0 for one never written. Offset lag 0 and no future replicas (nothing is ever
 * copied between log dirs); the volume's total and usable bytes are unknown (-1). All topics for a null topic
 * list, else the named partitions that exist (others are left out, as Apache Kafka leaves out what a broker does
 * not host). Stateless, thread-safe.
 */
@ApplicationScoped
class LogDirsApi implements KafkaApiProvider {
    /** The one log dir every broker reports: where the log lives. */
    static final String LOG_DIR = "postgresql";

    private final Topics topics;
    private final KafkaStore store;
    private final BrokerRegistry cluster;

    LogDirsApi(Topics topics, KafkaStore store, BrokerRegistry cluster) {
        this.topics = topics;
        this.store = store;
        this.cluster = cluster;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.DESCRIBE_LOG_DIRS, 5, (KafkaHandler<DescribeLogDirsRequestData>) (c, v, r) ->
                TopicApis.done(describe(c, r)));
    }

    DescribeLogDirsResponseData describe(KafkaCaller caller, DescribeLogDirsRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        List<String> names = null;
        Map<String, Set<Integer>> asked = null;
        if (request.topics() != null) {
            names = new ArrayList<>();
            asked = new HashMap<>();
            for (DescribableLogDirTopic t : request.topics()) {
                names.add(t.topic());
                asked.computeIfAbsent(t.topic(), k -> new HashSet<>()).addAll(t.partitions());
            }
        }
        Map<String, KafkaStore.Topic> found = names == null ? topics.all(tenant) : topics.lookup(tenant, names, false);
        Map<String, Long> sizes = new HashMap<>();
        // the sizes of the topics found only: a name no queue can have must not reach SQL (Topics.storable)
        for (KafkaStore.PartitionSize s : store.partitionSizes(tenant,
                names == null ? null : new ArrayList<>(found.keySet()))) {
            sizes.put(s.topic() + "/" + s.partition(), s.bytes());
        }
        ClusterView view = cluster.view();
        DescribeLogDirsResult dir = new DescribeLogDirsResult().setLogDir(LOG_DIR);
        for (KafkaStore.Topic t : found.values()) {
            Set<Integer> wanted = asked == null ? null : asked.get(t.name());
            DescribeLogDirsTopic dt = new DescribeLogDirsTopic().setName(t.name());
            for (int p = 0; p < t.partitions(); p++) {
                if ((wanted == null || wanted.contains(p)) && view.leader(t.name(), p).id() == view.self().id()) {
                    dt.partitions().add(new DescribeLogDirsPartition().setPartitionIndex(p)
                            .setPartitionSize(sizes.getOrDefault(t.name() + "/" + p, 0L)).setOffsetLag(0)
                            .setIsFutureKey(false));
                }
            }
            if (!dt.partitions().isEmpty()) {
                dir.topics().add(dt);
            }
        }
        return new DescribeLogDirsResponseData().setResults(List.of(dir));
    }
}
