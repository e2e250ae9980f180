package io.queen.lease;

import static io.queen.testing.Api.ackAll;
import static io.queen.testing.Api.configure;
import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.pop;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a stopping broker gives back ({@link LeaseRelease}, {@code queen.log_release_leases_v1}): exactly the live
 * leases it granted, as a redelivery from the cursor that spends no retry budget; acked batches and leases that
 * are not its own stay as they are.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LeaseReleaseTest {
    @Inject
    LeaseRelease release;
    @Inject
    AgroalDataSource ds;

    static List<String> txns(JsonNode popped) {
        return messages(popped).stream().map(m -> m.get("transactionId").asText()).toList();
    }

    @Test
    void releasesOnlyTheLiveLeasesThisBrokerGranted() throws Exception {
        configure("lr", "{\"leaseTime\":300}");
        pushN("lr", "a", "a", 0, 3);
        pushN("lr", "b", "b", 0, 2);
        pushN("lr", "c", "c", 0, 1);
        JsonNode a = pop("/api/v1/pop/queue/lr/partition/a?batch=2");
        JsonNode b = pop("/api/v1/pop/queue/lr/partition/b?batch=10");
        ackAll(b, "completed", null);
        assertNull(pop("/api/v1/pop/queue/lr/partition/a"), "leased for 300 s");
        // a lease on c that this broker did not grant (as if another broker had)
        pop("/api/v1/pop/queue/lr/partition/c");
        Sql.exec(ds, "UPDATE queen.log_consumers c SET worker_id = 'another-broker' FROM queen.log_partitions p"
                + " WHERE p.id = c.partition_id AND p.name = 'c'");

        assertEquals(1, release.releaseAll(), "only a's lease: b was acked, c is not ours");

        JsonNode again = pop("/api/v1/pop/queue/lr/partition/a?batch=10");
        assertEquals(List.of("a-0", "a-1", "a-2"), txns(again), "redelivered from the cursor at once");
        assertEquals(List.of("a-0", "a-1"), txns(a));
        assertEquals("0", Sql.one(ds, "SELECT c.batch_retry_count FROM queen.log_consumers c JOIN queen.log_partitions p"
                + " ON p.id = c.partition_id WHERE p.name = 'a'"), "no retry budget spent");
        assertEquals("another-broker", Sql.one(ds, "SELECT c.worker_id FROM queen.log_consumers c"
                + " JOIN queen.log_partitions p ON p.id = c.partition_id WHERE p.name = 'c'"));
        assertEquals(0, Sql.count(ds, "SELECT queen.log_release_leases_v1(ARRAY[]::uuid[], ARRAY[]::text[])"));
    }

    @Inject
    LeaseDirectory directory;

    /**
     * An ack that ends a lease on a partition drops that partition from the directory, so a steady consume loop
     * does not fill it with leases long acked; a lease still live elsewhere keeps its other partitions.
     */
    @Test
    void anAckThatEndsALeaseForgetsItsPartition() {
        pushN("ld", "x", "x", 0, 2);
        pushN("ld", "y", "y", 0, 2);
        JsonNode both = pop("/api/v1/pop/queue/ld?batch=10&partitions=2");
        String lease = both.get("leaseId").asText();
        assertEquals(2, directory.partitionsOf(lease).size(), "one lease over both partitions");
        JsonNode first = messages(both).get(0);
        String ackedPartition = first.get("partitionId").asText();
        ObjectNode ofFirst = Api.M.createObjectNode();
        ObjectNode ofSecond = Api.M.createObjectNode();
        for (JsonNode m : messages(both)) {
            (m.get("partitionId").asText().equals(ackedPartition) ? ofFirst : ofSecond).withArray("messages").add(m);
        }
        int before = directory.size();
        ackAll(ofFirst, "completed", null);
        assertEquals(List.of(UUID.fromString(ofSecond.get("messages").get(0).get("partitionId").asText())),
                directory.partitionsOf(lease), "the other partition is still leased");
        ackAll(ofSecond, "completed", null);
        assertNull(directory.partitionsOf(lease), "every partition acked: the lease is forgotten");
        assertEquals(before - 1, directory.size());
    }
}
