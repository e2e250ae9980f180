package io.queen.connector.incoming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The lag read from a consumer-group view: the channel's queue (and partition) only. */
class ConsumerLagTest {

    private static final JsonNode VIEW;

    static {
        try {
            VIEW = new ObjectMapper().readTree("""
                    {"orders": {"partitions": [
                        {"partition": "p0", "offsetLag": 4}, {"partition": "p1", "offsetLag": 3}]},
                     "audit": {"partitions": [{"partition": "Default", "offsetLag": 100}]}}""");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void sumsTheQueuesPartitions() {
        assertEquals(7, ConsumerLag.of(VIEW, "orders", null));
    }

    @Test
    void aChannelOnOnePartitionCountsThatPartition() {
        assertEquals(3, ConsumerLag.of(VIEW, "orders", "p1"));
    }

    @Test
    void aQueueTheGroupDoesNotConsumeHasNoLag() {
        assertEquals(0, ConsumerLag.of(VIEW, "invoices", null));
    }
}
