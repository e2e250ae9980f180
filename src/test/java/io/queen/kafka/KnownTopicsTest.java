package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What {@link KnownTopics} answers for: per tenant, for at most a second, within its bound. */
class KnownTopicsTest {
    static final UUID TENANT = UUID.randomUUID();

    static KafkaStore.Topic topic(String name) {
        return new KafkaStore.Topic(name, UUID.randomUUID(), 4, 0, false, "delete");
    }

    @Test
    void aFoundTopicStandsForASecondForItsTenantOnly() {
        KnownTopics known = new KnownTopics();
        KafkaStore.Topic t = topic("orders");
        known.found(TENANT, List.of(t), 1_000);
        assertEquals(t, known.get(TENANT, "orders", 1_000 + KnownTopics.VALID_NANOS));
        assertNull(known.get(TENANT, "orders", 1_001 + KnownTopics.VALID_NANOS), "read again after a second");
        assertNull(known.get(UUID.randomUUID(), "orders", 1_000), "another tenant's topic of that name");
        known.deleted(TENANT, "orders");
        assertNull(known.get(TENANT, "orders", 1_000), "forgotten once deleted here");
    }

    @Test
    void boundedByEmptyingWhenFull() {
        KnownTopics known = new KnownTopics();
        for (int i = 0; i < KnownTopics.MAX_ENTRIES; i++) {
            known.found(TENANT, List.of(topic("t" + i)), 0);
        }
        assertEquals("t0", known.get(TENANT, "t0", 0).name());
        known.found(TENANT, List.of(topic("one-more")), 0);
        assertNull(known.get(TENANT, "t0", 0));
        assertEquals("one-more", known.get(TENANT, "one-more", 0).name());
    }
}
