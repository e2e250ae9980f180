package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Consumer-protocol groups over the PostgreSQL log (db/028_kafka_consumer_groups.sql), as two brokers run them: the
 * handover of {@link ConsumerGroupsTest}, and the row's version fencing a save over a version that moved on.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class ConsumerGroupStateStoreTest {
    @Inject
    ConsumerGroupStateStore store;

    @Test
    void aGroupContinuesOnAnotherCoordinatorThroughPostgresql() {
        ConsumerGroupsTest.handover(store, new AtomicLong(1_000_000));
    }

    @Test
    void aSaveOverAVersionThatMovedOnIsRefusedAndTheEpochNeverGoesBack() {
        ClassicGroups.Key key = new ClassicGroups.Key(UUID.randomUUID(), "g");
        assertEquals(1, store.save(key, 0, 1, "{\"groupEpoch\":1}"));
        assertEquals(-1, store.save(key, 0, 1, "{}"), "a second first save");
        assertEquals(2, store.save(key, 1, 2, "{\"groupEpoch\":2}"));
        assertEquals(-1, store.save(key, 1, 3, "{}"), "over a stale version");
        assertEquals(-1, store.save(key, 2, 1, "{}"), "an epoch going back");
        assertEquals(new ConsumerGroupLog.Saved(2, "{\"groupEpoch\": 2}"), store.load(key));
        store.delete(key);
        assertEquals(null, store.load(key));
    }
}
