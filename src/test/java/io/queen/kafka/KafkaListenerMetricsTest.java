package io.queen.kafka;

import static io.queen.testing.Api.metric;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The Kafka listener's families: requests, latency and errors per API name, open connections, and the groups'
 * rebalances and members (this broker's; the registry outlives one application, so deltas are compared).
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaListenerMetricsTest extends KafkaListenerClients {
    @Test
    void requestsErrorsConnectionsAndRebalancesAreCounted() throws Exception {
        String createTopics = "queen_kafka_request_seconds_count{api=\"CreateTopics\"}";
        String rebalances = "queen_kafka_group_rebalances_total{protocol=\"classic\"}";
        double created = metric(createTopics);
        double rebalanced = metric(rebalances);
        createTopicsAt(bootstrap(), new NewTopic("km", 1, (short) 1));
        assertEquals(created + 1, metric(createTopics), "one CreateTopics request");
        assertTrue(metric("queen_kafka_request_seconds_bucket{api=\"CreateTopics\",le=\"30.0\"}") >= created + 1,
                "the latency histogram has the fixed buckets");

        String refused = "queen_kafka_request_errors_total{api=\"DescribeAcls\"}";
        double errors = metric(refused);
        try (Socket s = KafkaFrames.connect(listener.port())) {
            DescribeAclsResponseData r = KafkaFrames.call(s, ApiKeys.DESCRIBE_ACLS,
                    ApiKeys.DESCRIBE_ACLS.latestVersion(), 1, new DescribeAclsRequestData()
                            .setResourceTypeFilter((byte) 1).setPatternTypeFilter((byte) 1).setOperation((byte) 1)
                            .setPermissionType((byte) 1));
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), r.errorCode());
            assertEquals(errors + 1, metric(refused), "a request answered with its error answer");
            assertTrue(metric("queen_kafka_connections") >= 1, "this connection is open");
        }

        var p = consumerProperties(bootstrap(), "km-g");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            c.subscribe(List.of("km"));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (c.assignment().isEmpty() && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200));
            }
            assertEquals(1, c.assignment().size(), "the member was assigned the partition");
            assertTrue(metric(rebalances) >= rebalanced + 1, "the join completed a generation");
            assertEquals(1.0, metric("queen_kafka_group_members{protocol=\"classic\"}"), "one member now");
        }
    }

}
