package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.queen.kafka.KafkaBrokerProcess;
import io.queen.kafka.KafkaListenerClients;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A group of two Java consumers while the broker coordinating it is killed with -9 mid-consumption and restarted:
 * the consumers find their coordinator again, which loads the group as saved at its last completed rebalance, and
 * continue from the committed offsets (durable cursors). Every record is delivered, in order within each
 * assignment, and the committed offsets end exactly at the end of every partition.
 */
class KafkaGroupRestartIT {
    static final int PARTITIONS = 4;
    static final int RECORDS = 300;
    static final String TOPIC = "restart";
    static final String GROUP = "restart";

    static KafkaBrokerProcess broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new KafkaBrokerProcess("kafka-groups");
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    String bootstrap() {
        return broker.bootstrap();
    }

    @Test
    void aRestartedCoordinatorLosesNoRecordAndNoCommit() throws Exception {
        KafkaListenerClients.createTopicsAt(bootstrap(), new NewTopic(TOPIC, PARTITIONS, (short) 1));
        GroupConsumer.produce(bootstrap(), TOPIC, PARTITIONS, 0, RECORDS);

        Collection<GroupConsumer.Delivery> deliveries = new ConcurrentLinkedQueue<>();
        String range = "org.apache.kafka.clients.consumer.RangeAssignor";
        GroupConsumer a = new GroupConsumer(bootstrap(), "a", GROUP, range, TOPIC, deliveries, null);
        GroupConsumer b = new GroupConsumer(bootstrap(), "b", GROUP, range, TOPIC, deliveries, null);
        a.start();
        b.start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (deliveries.size() < PARTITIONS * RECORDS / 4 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        int atKill = deliveries.size();
        broker.killAndRestart();

        Map<Integer, Long> end = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            end.put(p, (long) RECORDS);
        }
        try (Admin admin = KafkaListenerClients.admin(bootstrap())) {
            deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (!GroupConsumer.committed(admin, GROUP).equals(end) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertEquals(end, GroupConsumer.committed(admin, GROUP), "every offset committed after the restart");
        }
        a.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
        b.stopAndJoin(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
        assertNull(a.failure);
        assertNull(b.failure);
        assertEquals(true, atKill >= PARTITIONS * RECORDS / 4 && atKill < PARTITIONS * RECORDS,
                "killed mid-consumption (" + atKill + " delivered)");
        GroupConsumer.assertEveryRecordInOrder(deliveries, PARTITIONS, RECORDS);
    }
}
