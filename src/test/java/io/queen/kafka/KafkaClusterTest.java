package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.cluster.BrokerRegistry;
import io.queen.kafka.group.GroupCoordinator;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.Await;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import jakarta.inject.Inject;
import java.net.Socket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.junit.jupiter.api.Test;

/**
 * The cluster view over brokers sharing one database, seen by Kafka clients: the broker registers itself; a second
 * broker registered in the same table (as another process would) appears in Metadata with partition leadership
 * spread over both and a share of the coordinator keys; a group request for a key the other broker coordinates is
 * answered NOT_COORDINATOR; a broker that leaves, or stops renewing and expires, takes nothing with it and its keys
 * come back here; a broker's node id is kept for its address, and never shared by two live brokers: a process whose
 * id was taken over serves no group any more.
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaClusterTest {
    static final KafkaCaller CALLER = new KafkaCaller("00000000-0000-0000-0000-000000000001", "cluster-test",
            "127.0.0.1");

    @Inject
    KafkaListener listener;
    @Inject
    BrokerRegistry registry;
    @Inject
    GroupCoordinator coordinator;
    @Inject
    AgroalDataSource ds;

    /** Another broker process registering (its id, or null to allocate one); answers its node id. */
    int join(Integer node, UUID instance, String host, int port, String rack, int sessionMs) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT queen.kafka_broker_join_v1(?, ?, ?, ?, ?, ?)")) {
            ps.setObject(1, node, java.sql.Types.INTEGER);
            ps.setObject(2, instance);
            ps.setString(3, host);
            ps.setInt(4, port);
            ps.setString(5, rack);
            ps.setInt(6, sessionMs);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    void leave(int node, UUID instance) {
        Sql.one(ds, "SELECT queen.kafka_broker_leave_v1(" + node + ", '" + instance + "')");
    }

    Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        return Admin.create(p);
    }

    static Map<Integer, Node> nodes(Admin admin) throws Exception {
        DescribeClusterResult r = admin.describeCluster();
        Map<Integer, Node> out = new HashMap<>();
        for (Node n : r.nodes().get(30, TimeUnit.SECONDS)) {
            out.put(n.id(), n);
        }
        assertEquals(out.keySet().stream().min(Integer::compare).orElseThrow(),
                r.controller().get(30, TimeUnit.SECONDS).id(), "the controller is the lowest live id");
        return out;
    }

    /** FindCoordinator v4 (batched) over the wire: the node id answered for each key. */
    Map<String, Integer> findCoordinators(CoordinatorType type, List<String> keys) throws Exception {
        try (Socket s = KafkaFrames.connect(listener.port())) {
            short v = 4;
            FindCoordinatorResponseData r = KafkaFrames.call(s, ApiKeys.FIND_COORDINATOR, v, 1,
                    new FindCoordinatorRequestData().setKeyType(type.id()).setCoordinatorKeys(keys));
            Map<String, Integer> out = new HashMap<>();
            for (FindCoordinatorResponseData.Coordinator c : r.coordinators()) {
                assertEquals(Errors.NONE.code(), c.errorCode());
                out.put(c.key(), c.nodeId());
            }
            return out;
        }
    }

    Errors heartbeat(String group) {
        return Errors.forCode(coordinator.heartbeat(CALLER, (short) 4, new HeartbeatRequestData().setGroupId(group)
                .setMemberId("m").setGenerationId(1)).toCompletableFuture().join().errorCode());
    }

    Errors joinGroup(String group) {
        JoinGroupRequestProtocolCollection ps = new JoinGroupRequestProtocolCollection();
        ps.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return Errors.forCode(coordinator.joinGroup(CALLER, (short) 9, new JoinGroupRequestData().setGroupId(group)
                .setMemberId("").setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000)
                .setProtocolType("consumer").setProtocols(ps)).toCompletableFuture().join().errorCode());
    }

    Errors commit(String group) {
        return Errors.forCode(coordinator.offsetCommit(CALLER, (short) 8, new OffsetCommitRequestData()
                .setGroupId(group).setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(new ArrayList<>(
                        List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("spread")
                                .setPartitions(new ArrayList<>(List.of(
                                        new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                                .setPartitionIndex(0).setCommittedOffset(0))))))))
                .toCompletableFuture().join().topics().get(0).partitions().get(0).errorCode());
    }

    @Test
    void asecondBrokerSharesLeadershipAndCoordinationUntilItLeaves() throws Exception {
        int self = registry.nodeId();
        assertEquals("1", Sql.one(ds, "SELECT count(*) FROM queen.kafka_brokers WHERE node_id = " + self
                + " AND expires_at > now() AND host = '127.0.0.1' AND port = " + listener.port()));
        UUID other = UUID.randomUUID();
        int id2 = join(null, other, "127.0.0.2", 19092, "rack-b", 60_000);
        assertNotEquals(self, id2);
        registry.beat();
        try (Admin admin = admin()) {
            Map<Integer, Node> nodes = nodes(admin);
            assertEquals(2, nodes.size(), nodes.toString());
            assertEquals("127.0.0.2", nodes.get(id2).host());
            assertEquals(19092, nodes.get(id2).port());
            assertEquals("rack-b", nodes.get(id2).rack());

            admin.createTopics(List.of(new NewTopic("spread", 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            TopicDescription d = admin.describeTopics(List.of("spread")).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get("spread");
            Map<Integer, Integer> led = new HashMap<>();
            d.partitions().forEach(p -> led.merge(p.leader().id(), 1, Integer::sum));
            assertEquals(Map.of(self, 3, id2, 3), led, "6 partitions over 2 brokers");

            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                keys.add("group-" + i);
            }
            Map<String, Integer> groups = findCoordinators(CoordinatorType.GROUP, keys);
            Map<String, Integer> txns = findCoordinators(CoordinatorType.TRANSACTION, keys);
            assertEquals(groups, txns, "one choice for both key types");
            String elsewhere = keys.stream().filter(k -> groups.get(k) == id2).findFirst().orElseThrow();
            String here = keys.stream().filter(k -> groups.get(k) == self).findFirst().orElseThrow();

            assertEquals(Errors.NOT_COORDINATOR, heartbeat(elsewhere));
            assertEquals(Errors.NOT_COORDINATOR, joinGroup(elsewhere));
            assertEquals(Errors.NOT_COORDINATOR, commit(elsewhere));
            assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat(here));
            assertEquals(Errors.NONE, commit(here));

            // the other broker stops gracefully: it is out of Metadata at this broker's next beat
            leave(id2, other);
            registry.beat();
            assertEquals(List.of(self), List.copyOf(nodes(admin).keySet()));
            assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat(elsewhere), "its groups are coordinated here now");
            assertEquals(Errors.NONE, commit(elsewhere));
            assertEquals(Map.of(self, 6), leadersOf(admin, "spread"));
        }
    }

    /** One ConsumerGroupHeartbeat (v1) of {@code member} at {@code epoch}, owning {@code owned} (null: unchanged). */
    ConsumerGroupHeartbeatResponseData consumerHeartbeat(String group, String member, int epoch,
            List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        ConsumerGroupHeartbeatRequestData r = new ConsumerGroupHeartbeatRequestData().setGroupId(group)
                .setMemberId(member).setMemberEpoch(epoch).setTopicPartitions(owned);
        if (epoch == 0) {
            r.setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of("handover"));
        }
        return coordinator.consumerGroupHeartbeat(CALLER, (short) 1, r).toCompletableFuture().join();
    }

    /** The partitions an answer assigned, as the next heartbeat reports them owned. */
    static List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned(ConsumerGroupHeartbeatResponseData r) {
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> out = new ArrayList<>();
        r.assignment().topicPartitions().forEach(t -> out.add(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                .setTopicId(t.topicId()).setPartitions(t.partitions())));
        return out;
    }

    /**
     * A consumer-protocol group whose coordinator changes: the broker that no longer coordinates it answers
     * NOT_COORDINATOR and drops it; when the group comes back, its members go on at their epochs with their
     * partitions, loaded from PostgreSQL.
     */
    @Test
    void aConsumerGroupComesBackWithItsEpochsAndPartitions() throws Exception {
        int self = registry.nodeId();
        UUID other = UUID.randomUUID();
        int id2 = join(null, other, "127.0.0.2", 19093, null, 60_000);
        registry.beat();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            keys.add("moving-" + i);
        }
        Map<String, Integer> owners = findCoordinators(CoordinatorType.GROUP, keys);
        String group = keys.stream().filter(k -> owners.get(k) == id2).findFirst().orElseThrow();
        leave(id2, other);
        registry.beat();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("handover", 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        assertEquals(1, consumerHeartbeat(group, "m1", 0, List.of()).memberEpoch());
        assertEquals(2, consumerHeartbeat(group, "m2", 0, List.of()).memberEpoch());
        ConsumerGroupHeartbeatResponseData m1 = consumerHeartbeat(group, "m1", 1, null);
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> kept = owned(m1);
        assertEquals(2, consumerHeartbeat(group, "m1", 1, kept).memberEpoch());
        List<ConsumerGroupHeartbeatRequestData.TopicPartitions> taken = owned(consumerHeartbeat(group, "m2", 2,
                List.of()));
        assertEquals(2, taken.get(0).partitions().size());

        UUID tenant = io.queen.auth.Tenants.of(CALLER.tenant());
        assertEquals(2, coordinator.snapshot(tenant, group).members().size(), "held here");

        // the other broker comes back under its id: the group is its own, this broker lets go of it
        assertEquals(id2, join(id2, other, "127.0.0.2", 19093, null, 60_000));
        registry.beat();
        assertEquals(Errors.NOT_COORDINATOR.code(), consumerHeartbeat(group, "m1", 2, kept).errorCode());
        Await.until("the group dropped from memory", () -> coordinator.snapshot(tenant, group) == null,
                Duration.ofSeconds(30));
        leave(id2, other);
        registry.beat();
        ConsumerGroupHeartbeatResponseData back = consumerHeartbeat(group, "m1", 2, kept);
        assertEquals(Errors.NONE.code(), back.errorCode());
        assertEquals(2, back.memberEpoch(), "the same epoch");
        assertEquals(Errors.NONE.code(), consumerHeartbeat(group, "m2", 2, taken).errorCode());
        ConsumerGroupDescribeResponseData.DescribedGroup d = coordinator.consumerGroupDescribe(CALLER, (short) 1,
                new ConsumerGroupDescribeRequestData().setGroupIds(List.of(group))).toCompletableFuture().join()
                .groups().get(0);
        assertEquals("Stable", d.groupState());
        assertEquals(2, d.groupEpoch());
        for (ConsumerGroupDescribeResponseData.Member m : d.members()) {
            List<ConsumerGroupHeartbeatRequestData.TopicPartitions> had = m.memberId().equals("m1") ? kept : taken;
            assertEquals(had.get(0).partitions(), m.assignment().topicPartitions().get(0).partitions(),
                    m.memberId() + " kept its partitions");
        }
        assertEquals(self, registry.nodeId());
    }

    static Map<Integer, Integer> leadersOf(Admin admin, String topic) throws Exception {
        Map<Integer, Integer> led = new HashMap<>();
        admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                .forEach(p -> led.merge(p.leader().id(), 1, Integer::sum));
        return led;
    }

    @Test
    void aBrokerWhoseIdAnotherProcessTookOverLeadsAndCoordinatesNothing() throws Exception {
        int self = registry.nodeId();
        String mine = Sql.one(ds, "SELECT instance FROM queen.kafka_brokers WHERE node_id = " + self);
        try {
            // a restart at the same address takes the id over (this process could not renew meanwhile)
            assertEquals(self, join(null, UUID.randomUUID(), "127.0.0.1", listener.port(), null, 60_000));
            registry.beat();
            assertTrue(!registry.view().includesSelf());
            assertEquals(Errors.NOT_COORDINATOR, heartbeat("any-group"));
            assertEquals(Errors.NOT_COORDINATOR, joinGroup("any-group"));
        } finally {
            Sql.one(ds, "UPDATE queen.kafka_brokers SET instance = '" + mine + "' WHERE node_id = " + self
                    + " RETURNING node_id");
        }
    }

    @Test
    void aSilentBrokerExpiresAndKeepsItsIdForItsAddress() throws Exception {
        UUID first = UUID.randomUUID();
        int id = join(null, first, "127.0.0.3", 19093, null, 1000);
        registry.beat();
        assertTrue(registry.view().nodes().stream().anyMatch(n -> n.id() == id));
        // it never renews: it drops out once its session (1 s of database time) has passed
        Await.within(() -> {
            registry.beat();
            return registry.view().nodes().stream().noneMatch(n -> n.id() == id);
        }, Duration.ofSeconds(30));
        Collection<Integer> live = registry.view().nodes().stream().map(n -> n.id()).toList();
        assertEquals(List.of(registry.nodeId()), List.copyOf(live));
        // restarted at the same address, it gets its old id back
        assertEquals(id, join(null, UUID.randomUUID(), "127.0.0.3", 19093, null, 60_000));
        // a live broker at the same address (a restart after kill -9, before the old session ran out) is replaced
        assertEquals(id, join(null, UUID.randomUUID(), "127.0.0.3", 19093, null, 60_000));
        // an id held by a live broker at another address is refused
        SQLException e = assertThrows(SQLException.class,
                () -> join(registry.nodeId(), UUID.randomUUID(), "127.0.0.9", 19099, null, 60_000));
        assertEquals("QK001", e.getSQLState());
        Sql.one(ds, "SELECT queen.kafka_broker_leave_v1(" + id + ", instance) FROM queen.kafka_brokers"
                + " WHERE node_id = " + id);
        registry.beat();
        assertEquals(1, registry.view().nodes().size());
    }
}
