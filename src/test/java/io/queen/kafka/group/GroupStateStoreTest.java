package io.queen.kafka.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.queen.kafka.group.ClassicGroups.JoinResult;
import io.queen.kafka.group.ClassicGroups.Key;
import io.queen.kafka.group.ClassicGroups.LeavingMember;
import io.queen.kafka.group.ClassicGroups.Settings;
import io.queen.kafka.group.ClassicGroups.SyncResult;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Sql;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Two coordinators over the PostgreSQL group log (db/024_kafka_cluster.sql), as two brokers are: the group formed on
 * one continues on the other with its generation, members, subscriptions and assignments; the row's version fences a
 * coordinator whose copy went stale; deleting the group forgets its row.
 */
@QuarkusTest
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class GroupStateStoreTest {
    @Inject
    GroupStateStore store;
    @Inject
    AgroalDataSource ds;

    final AtomicLong now = new AtomicLong(1_000_000);

    ClassicGroups coordinator() {
        return new ClassicGroups(new Settings(0, 1000, 60_000, 50, 1 << 20), now::get, store);
    }

    @Test
    void aGroupSavedByOneCoordinatorContinuesOnAnotherAndAStaleOneIsFenced() {
        ClassicGroups a = coordinator();
        ClassicGroups b = coordinator();
        Key key = new Key(UUID.randomUUID(), "billing");
        JoinResult m1 = GroupHandoverTest.member(a, key);
        assertEquals(1, m1.generationId());
        a.sync(key, m1.memberId(), null, 1, "consumer", "range", Map.of(m1.memberId(), new byte[] {1, 2, 3})).join();
        String where = " FROM queen.kafka_groups WHERE tenant_id = '" + key.tenant() + "' AND group_id = 'billing'";
        assertEquals(List.of(List.of(1, "Stable", "range", m1.memberId())),
                Sql.rows(ds, "SELECT generation, state, protocol_name, leader_id" + where));

        // b loads the group: the member's heartbeat, commit and SyncGroup go on in generation 1
        assertEquals(Errors.NONE, b.heartbeat(key, m1.memberId(), null, 1));
        assertEquals(Errors.NONE, b.validateCommit(key, m1.memberId(), null, 1));
        SyncResult again = b.sync(key, m1.memberId(), null, 1, "consumer", "range", Map.of()).join();
        assertArrayEquals(new byte[] {1, 2, 3}, again.assignment());
        ClassicGroups.GroupView v = b.describe(key);
        assertEquals(ClassicGroupState.STABLE, v.state());
        assertEquals("client", v.members().get(0).clientId());
        assertArrayEquals((m1.memberId() + "/range").getBytes(), v.members().get(0).metadata(),
                "the subscription survives the move");

        // b rebalances to generation 2; a, still holding generation 1, cannot complete a generation of its own
        CompletableFuture<JoinResult> onB = b.join(key, ClassicGroupsTest.join(m1.memberId(), true, "range"));
        assertEquals(2, onB.join().generationId());
        CompletableFuture<JoinResult> zombie = a.join(key, ClassicGroupsTest.join(m1.memberId(), true, "range"));
        assertEquals(Errors.NOT_COORDINATOR, zombie.join().error());
        assertEquals("2", Sql.one(ds, "SELECT generation" + where));
        // back on a, the group is loaded afresh: generation 1 is fenced
        assertEquals(Errors.ILLEGAL_GENERATION, a.heartbeat(key, m1.memberId(), null, 1));

        // the last member leaves; the empty group can be deleted, and its row goes with it
        b.leave(key, List.of(new LeavingMember(m1.memberId(), null)));
        assertEquals(Errors.NONE, b.beginDelete(key));
        b.deleted(key);
        assertNull(Sql.one(ds, "SELECT generation" + where));
    }
}
