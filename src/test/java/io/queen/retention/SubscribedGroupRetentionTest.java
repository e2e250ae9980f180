package io.queen.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.agroal.api.AgroalDataSource;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import io.queen.testing.StorageInvariants;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Completed retention ("consumed by every group") counts the groups subscribed to the queue that have not touched
 * a partition yet: such a group starts at its subscription timestamp, so only what predates it is completed for it.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class SubscribedGroupRetentionTest {
    @Inject
    AgroalDataSource ds;
    @Inject
    RetentionCycle cycle;

    long segments(String queue, String partition) {
        return Sql.count(ds, "SELECT count(*) FROM queen.log_segments s JOIN queen.log_partitions p ON p.id = s.partition_id"
                + " JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = '" + queue + "' AND p.name = '" + partition
                + "'");
    }

    /** Pops everything of one partition for a group and acks it; returns how many messages there were. */
    static int drain(String queue, String partition, String group) {
        JsonNode popped = Api.pop("/api/v1/pop/queue/" + queue + "/partition/" + partition + "?batch=100&wait=false"
                + "&consumerGroup=" + group);
        if (popped == null) {
            return 0;
        }
        Api.ackAll(popped, "completed", group);
        return Api.messages(popped).size();
    }

    @Test
    void aGroupSubscribedWithAllKeepsWhatItHasNotReadOnAPartitionItNeverTouched() throws Exception {
        Api.configure("keep", "{\"retentionEnabled\":true,\"completedRetentionSeconds\":1}");
        // g2 subscribes to the queue (mode all) through another partition; it never touches p1
        assertNull(Api.pop("/api/v1/pop/queue/keep/partition/p0?wait=false&consumerGroup=g2&subscriptionMode=all"));
        Api.pushN("keep", "p1", "k", 0, 10);
        assertEquals(10, drain("keep", "p1", "g1"));

        cycle.runOnce(Instant.now().plusSeconds(6));
        assertEquals(1, segments("keep", "p1"), "p1 was deleted although g2 never read it");
        assertEquals(10, drain("keep", "p1", "g2"));

        // now every subscribed group has consumed p1: completed retention deletes it
        cycle.runOnce(Instant.now().plusSeconds(6));
        assertEquals(0, segments("keep", "p1"));
        StorageInvariants.assertHold(ds);
    }

    @Test
    void aGroupSubscribedFromNowOnlyHoldsBackWhatCameAfterItsStart() throws Exception {
        Api.configure("fromnow", "{\"retentionEnabled\":true,\"completedRetentionSeconds\":1}");
        Api.pushN("fromnow", "p1", "a", 0, 5);   // one segment, before g3's start
        assertNull(Api.pop("/api/v1/pop/queue/fromnow/partition/p0?wait=false&consumerGroup=g3"
                + "&subscriptionMode=new"));
        Api.pushN("fromnow", "p1", "b", 5, 5);   // a second segment, after it
        assertEquals(10, drain("fromnow", "p1", "g1"));

        cycle.runOnce(Instant.now().plusSeconds(6));
        assertEquals(1, segments("fromnow", "p1"), "only the segment older than g3's subscription is completed");
        JsonNode popped = Api.pop("/api/v1/pop/queue/fromnow/partition/p1?batch=100&wait=false&consumerGroup=g3");
        List<JsonNode> got = Api.messages(popped);
        assertEquals(5, got.size());
        assertEquals("b-5", got.get(0).get("transactionId").asText());
        StorageInvariants.assertHold(ds);
    }

    @Test
    void withoutSubscribedGroupsCompletedRetentionStillDeletesWhatEveryCursorPassed() throws Exception {
        Api.configure("plain", "{\"retentionEnabled\":true,\"completedRetentionSeconds\":1}");
        Api.pushN("plain", "p1", "c", 0, 10);
        assertEquals(10, drain("plain", "p1", "g1"));
        cycle.runOnce(Instant.now().plusSeconds(6));
        assertEquals(0, segments("plain", "p1"));
    }
}
