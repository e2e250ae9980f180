package io.queen.shutdown;

import io.queen.testing.Await;
import io.queen.testing.TwoBrokers;
import io.queen.testing.Api;
import io.queen.testing.Outcome;
import io.queen.testing.Outcome.Answered;
import io.queen.testing.Outcome.Refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.BrokerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SIGTERM to one of two brokers under push/pop load from verifying clients. Clients start on both brokers; a
 * client of the stopped broker moves to the other one once its broker refuses (connection refused, or the 503
 * "shutting down" Quarkus answers before a request runs), retrying the same transaction id. Checked: no other
 * client-visible error, every acknowledged push is consumed, no message acked twice, and the batches the stopped
 * broker had leased (leases of 60 s) are delivered by the other broker within a second of the exit.
 */
class GracefulShutdownIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private static final String QUEUE = "gs";
    private static final int PARTITIONS = 8;

    @RegisterExtension
    static final TwoBrokers brokers = new TwoBrokers("graceful", "gs-a", Map.of(),
            "gs-b", Map.of());

    private static Outcome call(HttpRequest request) {
        return Outcome.of(HTTP, request, false);
    }

    private static HttpRequest post(String base, String path, String json) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).timeout(Duration.ofSeconds(30)).build();
    }

    private static HttpRequest get(String base, String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).GET().timeout(Duration.ofSeconds(30)).build();
    }

    /** Shared by the clients of one run. */
    static final class Ledger {
        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        final Set<String> acked = ConcurrentHashMap.newKeySet();
        final Set<String> ackedTwice = ConcurrentHashMap.newKeySet();
        /** txn -> delivery times (nanoTime) by broker B after the stop, first one kept. */
        final Map<String, Long> deliveredByBAfterStop = new ConcurrentHashMap<>();
        /** txns delivered by A and never acked through A. */
        final Set<String> deliveredByA = ConcurrentHashMap.newKeySet();
        final Set<String> ackedThroughA = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        final Map<String, AtomicInteger> refusals = new ConcurrentHashMap<>();
        final AtomicInteger retriedElsewhere = new AtomicInteger();
        volatile long stopSignalled;

        void refused(Refused r) {
            refusals.computeIfAbsent(r.why(), k -> new AtomicInteger()).incrementAndGet();
        }
    }

    @Test
    void sigtermUnderLoadAnswersEverythingLosesNothingAndHandsLeasesOver() throws Exception {
        Outcome cfg = call(post(brokers.b().url(), "/api/v1/configure",
                "{\"queue\":\"" + QUEUE + "\",\"options\":{\"leaseTime\":60,\"retryLimit\":100}}"));
        assertEquals(200, ((Answered) cfg).status());
        Ledger ledger = new Ledger();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicBoolean consuming = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(11);
        List<Future<?>> producers = new ArrayList<>();
        List<Future<?>> consumers = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            int id = p;
            producers.add(pool.submit(() -> produce(id, id % 2 == 0 ? brokers.a() : brokers.b(), producing, ledger)));
        }
        for (int c = 0; c < 4; c++) {
            BrokerProcess home = c < 2 ? brokers.a() : brokers.b();
            consumers.add(pool.submit(() -> consume(home, consuming, ledger)));
        }
        Await.until("the load runs", () -> ledger.acked.size() >= 40, Duration.ofSeconds(60));

        // a consumer of A that holds its batch when the stop comes: its lease (60 s) must be handed over
        List<String> held = holdABatch(brokers.a());
        assertFalse(held.isEmpty(), "a batch leased from the broker to be stopped");
        ledger.deliveredByA.addAll(held);

        // a long poll parked on the stopping broker for 30 s: answered 204 at the drain, it does not hold the exit
        Future<Outcome> parked = pool.submit(() -> call(get(brokers.a().url(), "/api/v1/pop/queue/gs-idle?wait=true&timeout=30000")));
        Thread.sleep(300);

        ledger.stopSignalled = System.nanoTime();
        long drainMs = brokers.a().terminate(Duration.ofSeconds(40));
        Outcome parkedAnswer = parked.get(5, TimeUnit.SECONDS);
        assertTrue(parkedAnswer instanceof Answered p && p.status() == 204, "parked pop: " + parkedAnswer);
        assertTrue(drainMs < 25_000, "the parked pop did not hold the exit: " + drainMs + " ms");
        long exited = System.nanoTime();
        System.out.println("graceful shutdown: SIGTERM to exit " + drainMs + " ms under load");
        int ackedAtExit = ledger.acked.size();
        Await.until("the load goes on at the other broker", () -> ledger.acked.size() >= ackedAtExit + 20,
                Duration.ofSeconds(60));
        producing.set(false);
        for (Future<?> f : producers) {
            f.get(60, TimeUnit.SECONDS);
        }
        Await.within(() -> ledger.acked.containsAll(ledger.acknowledged), Duration.ofSeconds(60));
        consuming.set(false);
        for (Future<?> f : consumers) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        String log = brokers.a().logText();
        System.out.println("graceful shutdown: " + ledger.acknowledged.size() + " pushes acknowledged, "
                + ledger.acked.size() + " acked, " + "refusals " + ledger.refusals + ", "
                + ledger.retriedElsewhere.get() + " requests moved to the other broker");
        assertTrue(ledger.errors.isEmpty(), "client-visible errors: " + ledger.errors);
        assertTrue(ledger.acknowledged.size() > 20, "the load ran: " + ledger.acknowledged.size());
        Set<String> lost = new java.util.HashSet<>(ledger.acknowledged);
        lost.removeAll(ledger.acked);
        assertTrue(lost.isEmpty(), lost.size() + " acknowledged pushes never consumed, e.g. "
                + lost.stream().limit(5).toList());
        assertTrue(ledger.ackedTwice.isEmpty(), "acked twice: " + ledger.ackedTwice);
        assertTrue(log.contains("lease(s) released"), log);

        // handed over: every message A delivered and nobody acked through A went to B after the stop
        Set<String> handedOver = new java.util.HashSet<>(ledger.deliveredByA);
        handedOver.removeAll(ledger.ackedThroughA);
        assertTrue(handedOver.containsAll(held));
        long worst = Long.MIN_VALUE;
        for (String txn : handedOver) {
            Long at = ledger.deliveredByBAfterStop.get(txn);
            assertTrue(at != null, txn + " leased by the stopped broker was not redelivered by the other one");
            worst = Math.max(worst, (at - exited) / 1_000_000);
        }
        System.out.println("graceful shutdown: " + handedOver.size() + " leased messages redelivered by the other"
                + " broker, the last " + worst + " ms after the exit (" + (worst + drainMs)
                + " ms after SIGTERM; lease time 60 s)");
        assertTrue(worst < 1000, "redelivery took " + worst + " ms after the exit");
    }

    /** One push at a time, unique transaction ids; a refused push is retried on the other broker with the same id. */
    private static void produce(int id, BrokerProcess home, AtomicBoolean running, Ledger ledger) {
        BrokerProcess target = home;
        for (int seq = 0; running.get(); seq++) {
            String txn = "p" + id + "-" + seq;
            String body = "{\"items\":[{\"queue\":\"" + QUEUE + "\",\"partition\":\"p" + (seq % PARTITIONS)
                    + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"txn\":\"" + txn + "\"}}]}";
            while (true) {
                Outcome o = call(post(target.url(), "/api/v1/push", body));
                if (o instanceof Refused r && target == brokers.a()) {
                    ledger.refused(r);
                    ledger.retriedElsewhere.incrementAndGet();
                    target = brokers.b();
                    continue;
                }
                if (o instanceof Answered ans && ans.status() == 201) {
                    String status = Api.json(ans.body()).get(0).get("status").asText();
                    if (target != home && "duplicate".equals(status)) {
                        ledger.errors.add("push " + txn + " was committed but its client got no answer");
                    } else if (!"queued".equals(status) && !"duplicate".equals(status)) {
                        ledger.errors.add("push " + txn + ": " + ans.body());
                    }
                    ledger.acknowledged.add(txn);
                    break;
                }
                ledger.errors.add("push " + txn + " to " + target.url() + ": " + o);
                break;
            }
            sleep(1);
        }
    }

    /** Long-poll pops, a short "processing", an ack through the broker that delivered. */
    private static void consume(BrokerProcess home, AtomicBoolean running, Ledger ledger) {
        BrokerProcess target = home;
        while (running.get()) {
            Outcome o = call(get(target.url(), "/api/v1/pop/queue/" + QUEUE + "?batch=10&wait=true&timeout=500"));
            if (o instanceof Refused r && target == brokers.a()) {
                ledger.refused(r);
                target = brokers.b();
                continue;
            }
            if (!(o instanceof Answered ans) || (ans.status() != 200 && ans.status() != 204)) {
                ledger.errors.add("pop from " + target.url() + ": " + o);
                sleep(100);
                continue;
            }
            if (ans.status() == 204) {
                continue;
            }
            long at = System.nanoTime();
            JsonNode messages = Api.json(ans.body()).get("messages");
            StringBuilder acks = new StringBuilder();
            List<String> txns = new ArrayList<>();
            for (JsonNode m : messages) {
                String txn = m.get("transactionId").asText();
                txns.add(txn);
                if (target == brokers.a()) {
                    ledger.deliveredByA.add(txn);
                } else if (ledger.stopSignalled != 0) {
                    ledger.deliveredByBAfterStop.putIfAbsent(txn, at);
                }
                acks.append(acks.length() == 0 ? "" : ",").append("{\"transactionId\":\"").append(txn)
                        .append("\",\"partitionId\":\"").append(m.get("partitionId").asText())
                        .append("\",\"leaseId\":\"").append(m.get("leaseId").asText())
                        .append("\",\"status\":\"completed\"}");
            }
            sleep(10);
            Outcome ack = call(post(target.url(), "/api/v1/ack/batch", "{\"acknowledgments\":[" + acks + "]}"));
            if (ack instanceof Refused r && target == brokers.a()) {
                ledger.refused(r);
                target = brokers.b();  // the batch is redelivered from the released lease
                continue;
            }
            if (!(ack instanceof Answered ackAns) || ackAns.status() != 200) {
                ledger.errors.add("ack to " + target.url() + ": " + ack);
                continue;
            }
            JsonNode results = Api.json(ackAns.body());
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).get("success").asBoolean()) {
                    String txn = txns.get(i);
                    if (!ledger.acked.add(txn)) {
                        ledger.ackedTwice.add(txn);
                    }
                    if (target == brokers.a()) {
                        ledger.ackedThroughA.add(txn);
                    }
                }
            }
        }
    }

    /** Pops one batch from the broker and keeps it unacked; returns its transaction ids. */
    private static List<String> holdABatch(BrokerProcess broker) {
        List<String> txns = new ArrayList<>();
        for (int i = 0; i < 50 && txns.isEmpty(); i++) {
            Outcome o = call(get(broker.url(), "/api/v1/pop/queue/" + QUEUE + "?batch=20&wait=true&timeout=500"));
            if (o instanceof Answered ans && ans.status() == 200) {
                Api.json(ans.body()).get("messages").forEach(m -> txns.add(m.get("transactionId").asText()));
            }
        }
        return txns;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
