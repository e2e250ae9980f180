package io.queen.pop;

import static io.queen.testing.Api.messages;
import static io.queen.testing.Api.metric;
import static io.queen.testing.Api.pushN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Api;
import io.queen.testing.FreshDatabase;
import io.queen.testing.Http;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A commit of this broker wakes every parked pop of its queue, but only as many of them claim as the commit (or a
 * pop that left work behind) put partitions on the group's hot list; the rest sleep on without claiming, and every
 * message still reaches a parked pop within its timeout.
 */
@QuarkusTest
@TestProfile(WakeUpTest.QuietProfile.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class WakeUpTest {
    /** No maintenance-switch polling: nothing but the test's own pushes wakes the parked pops. */
    public static class QuietProfile extends DrivenClock.Profile {
        public QuietProfile() {
            super("queen.maintenance.poll-ms", "600000");
        }
    }

    private static final int POLLS = 6;

    @Inject
    DrivenClock clock;

    private List<CompletableFuture<Http.Reply>> park(String path, int n) throws InterruptedException {
        int parked = clock.parked();
        List<CompletableFuture<Http.Reply>> polls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            polls.add(CompletableFuture.supplyAsync(() -> Http.get(path)));
        }
        clock.awaitParked(parked + n);
        return polls;
    }

    @Test
    void eachCommitIsClaimedByOneParkedPopWhileTheOthersSleepOn() throws Exception {
        // the partitions exist and the group has seen them: the pushes below are one transaction each
        for (int i = 0; i < POLLS; i++) {
            pushN("fan", "p" + i, "w", 0, 1);
        }
        for (int i = 0; i < POLLS; i++) {
            assertEquals(1, messages(Api.pop("/api/v1/pop/queue/fan?autoAck=true&consumerGroup=g")).size());
        }
        List<CompletableFuture<Http.Reply>> polls =
                park("/api/v1/pop/queue/fan?wait=true&timeout=30000&batch=10&autoAck=true&consumerGroup=g", POLLS);
        // a woken pop sleeps on either from the hot list or, when another pop woken by the same commit already
        // found nothing, from that finding (known empty); either way without a claim
        double slept = sleptOn();
        for (int i = 0; i < POLLS; i++) {
            List<CompletableFuture<Http.Reply>> waiting = new ArrayList<>(polls);
            waiting.removeIf(CompletableFuture::isDone);
            pushN("fan", "p" + i, "m", 1, 1);
            // the one that claims answers; every other parked pop was woken and went back to sleep without a claim
            // (before, each of them ranked the queue and checked for pending work: 15 rankings for these six
            // commits, 42 transactions in all against 18-31 now, measured 2026-12-02 from pg_stat_database)
            CompletableFuture.anyOf(waiting.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            int answered = i + 1;
            assertEquals(answered, polls.stream().filter(CompletableFuture::isDone).count(), "answered polls");
            clock.awaitParked(POLLS - answered);
            assertTrue(sleptOn() >= slept + (long) POLLS * answered - (long) answered * (answered + 1) / 2,
                    "pops that slept on: " + (sleptOn() - slept) + " after " + answered + " commits");
        }
        Set<String> got = new HashSet<>();
        for (CompletableFuture<Http.Reply> p : polls) {
            Http.Reply r = p.get();
            assertEquals(200, r.status(), r.body());
            List<JsonNode> ms = messages(Api.json(r.body()));
            assertEquals(1, ms.size(), r.body());
            got.add(ms.get(0).get("partition").asText());
        }
        assertEquals(Set.of("p0", "p1", "p2", "p3", "p4", "p5"), got);
    }

    /** Woken pops that went back to sleep without a claim: from the hot list, or from what another pop found. */
    private static double sleptOn() {
        return metric("queen_pop_resleeps_total") + metric("queen_pop_known_empty_total");
    }

    @Test
    void aPopThatFillsItsBatchHandsTheRestToTheNextParkedPop() throws Exception {
        pushN("rest", "warm", "w", 0, 1);
        assertEquals(1, messages(Api.pop("/api/v1/pop/queue/rest?autoAck=true&consumerGroup=g")).size());
        List<CompletableFuture<Http.Reply>> polls =
                park("/api/v1/pop/queue/rest?wait=true&timeout=20000&batch=2&autoAck=true&consumerGroup=g", 3);
        // one commit of five messages to one partition: the pop that claims it fills its batch of two
        pushN("rest", "only", "m", 0, 5);
        List<Integer> sizes = new ArrayList<>();
        for (CompletableFuture<Http.Reply> p : polls) {
            Http.Reply r = p.get();
            assertEquals(200, r.status(), "a parked pop timed out while work was left: " + r.body());
            sizes.add(messages(Api.json(r.body())).size());
        }
        sizes.sort(null);
        assertEquals(List.of(1, 2, 2), sizes);
    }

    /**
     * The work an ack leaves behind is its group's alone, in one partition: one parked pop of that group is woken
     * and claims it by name (without a wake-up it would sleep to its timeout: the lease it saw expires much later),
     * and no pop ranks the queue (each parked pop of the group, and of another group, used to).
     */
    @Test
    void anAckThatLeavesWorkBehindIsClaimedByNameWithoutRankingTheQueue() throws Exception {
        pushN("freed-one", "p", "a", 0, 1);
        JsonNode leased = Api.pop("/api/v1/pop/queue/freed-one?consumerGroup=g");
        assertEquals(1, messages(leased).size());
        // pushed while the partition is leased: claimable only once the lease ends
        pushN("freed-one", "p", "b", 1, 1);
        // another group has taken everything and waits for more
        JsonNode other = Api.pop("/api/v1/pop/queue/freed-one?consumerGroup=h&batch=10");
        assertEquals(2, messages(other).size());
        Api.ackAll(other, "completed", "h");
        int before = clock.parked();
        List<CompletableFuture<Http.Reply>> polls = new ArrayList<>();
        polls.addAll(park("/api/v1/pop/queue/freed-one?wait=true&timeout=30000&consumerGroup=g", 3));
        polls.addAll(park("/api/v1/pop/queue/freed-one?wait=true&timeout=30000&consumerGroup=h", 2));
        double rankings = metric("queen_pop_rankings_total");
        assertTrue(Api.ackAll(leased, "completed", "g").get(0).get("success").asBoolean());
        CompletableFuture.anyOf(polls.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        clock.awaitParked(before + 4);
        assertEquals(rankings, metric("queen_pop_rankings_total"), "pops that ranked the queue after the ack");
        List<CompletableFuture<Http.Reply>> answered = polls.stream().filter(CompletableFuture::isDone).toList();
        assertEquals(1, answered.size(), "answered polls");
        assertTrue(polls.indexOf(answered.get(0)) < 3, "a pop of the acking group answered");
        Http.Reply r = answered.get(0).get();
        assertEquals(200, r.status(), r.body());
        assertEquals("b-1", messages(Api.json(r.body())).get(0).get("transactionId").asText());
        clock.advance(Duration.ofSeconds(31));
        for (CompletableFuture<Http.Reply> p : polls) {
            assertTrue(p.get(60, TimeUnit.SECONDS).status() != 200 || p == answered.get(0), "nothing else to take");
        }
    }

    @Test
    void anAckThatFreesNothingSparesTheClaimButNeverHidesAPush() throws Exception {
        pushN("idle", "p", "a", 0, 1);
        JsonNode first = Api.pop("/api/v1/pop/queue/idle?consumerGroup=g");
        assertEquals(1, messages(first).size());
        List<CompletableFuture<Http.Reply>> polls =
                park("/api/v1/pop/queue/idle?wait=true&timeout=20000&consumerGroup=g", 1);
        assertTrue(Api.ackAll(first, "completed", "g").get(0).get("success").asBoolean());
        // the partition holds nothing past the ack: a pop now is answered from what the parked pop found,
        // without a claim
        double known = metric("queen_pop_known_empty_total");
        assertEquals(null, Api.pop("/api/v1/pop/queue/idle?consumerGroup=g"));
        assertEquals(known + 1, metric("queen_pop_known_empty_total"));
        assertTrue(!polls.get(0).isDone());
        // and a push still reaches the parked pop
        pushN("idle", "p", "c", 1, 1);
        Http.Reply r = polls.get(0).get();
        assertEquals(200, r.status(), r.body());
        assertEquals("c-1", messages(Api.json(r.body())).get(0).get("transactionId").asText());
    }

    /**
     * Producers and leasing consumers at once, pushes racing acks on the same partitions: every message is
     * delivered while the consumers keep polling, none waits for a lease to expire or the recheck interval.
     */
    @Test
    void pushesRacingAcksLeaveNothingStranded() throws Exception {
        int producers = 4;
        int pushes = 40;
        int partitions = 6;
        int total = producers * pushes;
        Set<String> got = ConcurrentHashMap.newKeySet();
        CountDownLatch delivered = new CountDownLatch(total);
        AtomicBoolean stop = new AtomicBoolean();
        List<CompletableFuture<Void>> consumers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            consumers.add(CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    JsonNode popped = Api.pop("/api/v1/pop/queue/race?wait=true&timeout=2000&batch=5&consumerGroup=g");
                    if (popped == null) {
                        continue;
                    }
                    for (JsonNode m : messages(popped)) {
                        if (got.add(m.get("transactionId").asText())) {
                            delivered.countDown();
                        }
                    }
                    Api.ackAll(popped, "completed", "g");
                }
            }));
        }
        List<CompletableFuture<Void>> pushers = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            pushers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < pushes; i++) {
                    pushN("race", "p" + ((producer + i) % partitions), "m" + producer, i, 1);
                }
            }));
        }
        CompletableFuture.allOf(pushers.toArray(new CompletableFuture[0])).get();
        // the lease (60 s) and the recheck interval (30 s) are both far beyond this
        delivered.await(15, TimeUnit.SECONDS);
        stop.set(true);
        CompletableFuture.allOf(consumers.toArray(new CompletableFuture[0])).get();
        assertEquals(total, got.size(), "messages delivered within 15 s of the last push");
    }
}
