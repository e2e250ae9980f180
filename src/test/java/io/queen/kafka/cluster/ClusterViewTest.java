package io.queen.kafka.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The deterministic spread: every broker that reads the same live set (in any order) makes the same choices,
 * partitions and coordinator keys spread over every live broker, and a broker missing from the view (leaving)
 * is chosen for nothing.
 */
class ClusterViewTest {
    static KafkaNode node(int id) {
        return new KafkaNode(id, "10.0.0." + id, 9092, null);
    }

    @Test
    void everyBrokerChoosesTheSameLeaderAndCoordinatorWhateverOrderItReadTheBrokersIn() {
        ClusterView one = new ClusterView(node(1), List.of(node(1), node(2), node(3)));
        ClusterView two = new ClusterView(node(2), List.of(node(3), node(1), node(2)));
        for (int p = 0; p < 50; p++) {
            assertEquals(one.leader("orders", p), two.leader("orders", p));
        }
        for (int g = 0; g < 50; g++) {
            String key = "group-" + g;
            assertEquals(one.coordinator(ClusterView.KeyType.GROUP, key),
                    two.coordinator(ClusterView.KeyType.GROUP, key));
            assertEquals(one.coordinates(ClusterView.KeyType.GROUP, key),
                    one.coordinator(ClusterView.KeyType.GROUP, key).id() == 1);
        }
        assertEquals(1, one.controllerId());
        assertEquals(1, two.controllerId());
    }

    @Test
    void partitionsOfATopicGoRoundTheBrokersAndKeysSpreadOverAll() {
        ClusterView v = new ClusterView(node(1), List.of(node(1), node(2), node(3)));
        Map<Integer, Integer> leaders = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            leaders.merge(v.leader("orders", p).id(), 1, Integer::sum);
        }
        assertEquals(Map.of(1, 2, 2, 2, 3, 2), leaders, "6 partitions, 2 per broker");
        assertEquals(v.leader("orders", 0).id() % 3 + 1, v.leader("orders", 1).id(),
                "consecutive partitions, consecutive brokers");
        Map<Integer, Integer> coordinators = new HashMap<>();
        for (int g = 0; g < 300; g++) {
            coordinators.merge(v.coordinator(ClusterView.KeyType.GROUP, "g" + g).id(), 1, Integer::sum);
        }
        assertEquals(3, coordinators.size());
        coordinators.values().forEach(n -> assertTrue(n > 50, "each broker coordinates a share: " + coordinators));
        // transactional ids go through the same choice
        assertEquals(v.coordinator(ClusterView.KeyType.GROUP, "x"),
                v.coordinator(ClusterView.KeyType.TRANSACTION, "x"));
    }

    @Test
    void aBrokerNotInTheViewIsChosenForNothingAndALoneBrokerForEverything() {
        ClusterView leaving = new ClusterView(node(1), List.of(node(1), node(2), node(3))).withoutSelf();
        assertFalse(leaving.includesSelf());
        assertEquals(List.of(node(2), node(3)), leaving.nodes());
        for (int g = 0; g < 100; g++) {
            assertFalse(leaving.coordinates(ClusterView.KeyType.GROUP, "g" + g));
            assertTrue(leaving.leader("t", g).id() != 1);
        }
        ClusterView alone = ClusterView.alone(node(7)).withoutSelf();
        assertTrue(alone.includesSelf(), "a broker alone has no one to hand over to");
        assertEquals(7, alone.leader("t", 5).id());
        assertTrue(alone.coordinates(ClusterView.KeyType.GROUP, "anything"));
        assertEquals(7, alone.controllerId());
    }
}
