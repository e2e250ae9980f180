package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quarkus.runtime.configuration.MemorySize;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.cluster.ClusterView;
import io.queen.kafka.cluster.KafkaNode;
import io.queen.shutdown.DrainState;
import java.math.BigInteger;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.junit.jupiter.api.Test;

/**
 * A failing database (a failover under way) makes OffsetCommit and OffsetFetch fail with
 * COORDINATOR_NOT_AVAILABLE, which Kafka clients retry after finding their coordinator again, instead of
 * UNKNOWN_SERVER_ERROR, which they give up on.
 */
class GroupCoordinatorFailureTest {
    static final KafkaCaller CALLER = new KafkaCaller(UUID.randomUUID().toString(), "c", "127.0.0.1");

    static final class FailingStore extends GroupOffsetStore {
        @Override
        public Set<TopicPartition> commit(UUID tenant, String group, List<PartitionOffset> offsets)
                throws SQLException {
            throw new SQLException("connection lost", "08006");
        }

        @Override
        public List<PartitionOffset> fetch(UUID tenant, String group, List<String> topics) throws SQLException {
            throw new SQLException("connection lost", "08006");
        }
    }

    static final KafkaGroupConfig CONFIG = new KafkaGroupConfig() {
        @Override
        public int initialRebalanceDelayMs() {
            return 0;
        }

        @Override
        public int minSessionTimeoutMs() {
            return 1000;
        }

        @Override
        public int maxSessionTimeoutMs() {
            return 60_000;
        }

        @Override
        public int maxSize() {
            return 10;
        }

        @Override
        public int consumerSessionTimeoutMs() {
            return 3000;
        }

        @Override
        public int consumerHeartbeatIntervalMs() {
            return 300;
        }

        @Override
        public MemorySize maxMemberBytes() {
            return new MemorySize(BigInteger.valueOf(1 << 20));
        }
    };

    @Test
    void aDatabaseFailureAnswersARetriableCoordinatorNotAvailable() {
        GroupCoordinator coordinator = new GroupCoordinator(CONFIG, new FailingStore(), null, new DrainState(),
                new InMemoryGroupLog(), () -> ClusterView.alone(new KafkaNode(1, "localhost", 9092, null)),
                new InMemoryConsumerGroupLog(), tenant -> java.util.Map.of());
        try {
            // a commit's write failing fails its answer's stage (the commits written with it fail with it)
            assertInstanceOf(CoordinatorNotAvailableException.class, assertThrows(ExecutionException.class,
                    () -> coordinator.offsetCommit(CALLER, (short) 8, GroupCoordinatorTest.commit("g", -1, "", "t", 3))
                            .toCompletableFuture().get()).getCause());
            assertThrows(CoordinatorNotAvailableException.class, () -> coordinator.offsetFetch(CALLER, (short) 8,
                    new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestGroup().setGroupId("g")
                            .setTopics(null)))));
        } finally {
            coordinator.stop();
        }
    }
}
