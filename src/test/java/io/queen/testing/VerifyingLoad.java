package io.queen.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.Outcome.Answered;
import io.queen.testing.Outcome.Refused;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Steady push/pop/ack load from verifying clients over a set of broker slots whose brokers may be stopped and
 * replaced while it runs (rolling restarts, failovers). Producers push one message at a time with unique
 * transaction ids and retry an unanswered push, same id, until it is answered; consumers long-poll, "process" for a
 * moment and ack through the broker that delivered. A client whose broker refuses (connection refused, a 503
 * before anything ran, a connection closed with no byte of answer) moves to the next slot; any other failure is
 * recorded as an error. Thread-safe; one instance per run.
 */
public final class VerifyingLoad implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private final String queue;
    private final int partitions;
    private final AtomicReferenceArray<BrokerProcess> slots;
    private final ExecutorService pool;
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicBoolean consuming = new AtomicBoolean(true);
    private final List<Future<?>> producers = new ArrayList<>();
    private final List<Future<?>> consumers = new ArrayList<>();
    /** While set, an unanswered request may also be a 5xx of a database that is failing over. */
    private volatile boolean tolerateUnavailable;

    final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    final Map<String, AtomicInteger> refusals = new ConcurrentHashMap<>();
    final AtomicInteger pushRetries = new AtomicInteger();
    /** {attempt started, answered} (nanoTime) of every push answered 201 and every pop that delivered. */
    final ConcurrentLinkedQueue<long[]> pushTimes = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<long[]> popTimes = new ConcurrentLinkedQueue<>();

    /** What the clients saw, in totals. */
    public record Report(int acknowledged, int consumed, int lost, int ackedTwice, int deliveries, int redeliveries,
            Map<String, Integer> refusals, int pushRetries, List<String> errors) {
        @Override
        public String toString() {
            return acknowledged + " pushes acknowledged, " + consumed + " consumed (acked), " + lost + " lost, "
                    + ackedTwice + " acked twice, " + deliveries + " deliveries (" + redeliveries
                    + " redeliveries of unacked batches), " + pushRetries + " pushes retried on another broker,"
                    + " refusals " + refusals + ", " + errors.size() + " errors";
        }
    }

    public VerifyingLoad(String queue, int partitions, AtomicReferenceArray<BrokerProcess> slots, int producers,
            int consumers) {
        this.queue = queue;
        this.partitions = partitions;
        this.slots = slots;
        this.pool = Executors.newFixedThreadPool(producers + consumers);
        for (int p = 0; p < producers; p++) {
            int id = p;
            this.producers.add(pool.submit(() -> produce(id)));
        }
        for (int c = 0; c < consumers; c++) {
            int id = c;
            this.consumers.add(pool.submit(() -> consume(id)));
        }
    }

    /** During a database failover a request may be answered 503 "database unavailable": a refusal, not an error. */
    public void tolerateUnavailable(boolean on) {
        tolerateUnavailable = on;
    }

    public int acknowledgedSoFar() {
        return acknowledged.size();
    }

    /** Stops the producers, then waits until every acknowledged push was acked or the time is up. */
    public Report finish(Duration drain) throws Exception {
        producing.set(false);
        for (Future<?> f : producers) {
            f.get(60, TimeUnit.SECONDS);
        }
        Await.within(() -> acks.keySet().containsAll(acknowledged), drain);
        consuming.set(false);
        for (Future<?> f : consumers) {
            f.get(60, TimeUnit.SECONDS);
        }
        return report();
    }

    public Report report() {
        Set<String> lost = new HashSet<>(acknowledged);
        lost.removeAll(acks.keySet());
        int twice = (int) acks.values().stream().filter(n -> n.get() > 1).count();
        int delivered = deliveries.values().stream().mapToInt(AtomicInteger::get).sum();
        int redelivered = deliveries.values().stream().mapToInt(n -> n.get() - 1).sum();
        Map<String, Integer> r = new TreeMap<>();
        refusals.forEach((k, v) -> r.put(k, v.get()));
        return new Report(acknowledged.size(), acks.size(), lost.size(), twice, delivered, redelivered, r,
                pushRetries.get(), List.copyOf(errors));
    }

    /**
     * When the first push whose successful attempt was sent after {@code t} (nanoTime) was answered, or -1: the
     * moment writes work again after a fault at {@code t}.
     */
    public long firstPushAnsweredAfter(long t) {
        return firstAfter(pushTimes, t);
    }

    /** Same for the first pop that delivered messages. */
    public long firstPopDeliveredAfter(long t) {
        return firstAfter(popTimes, t);
    }

    private static long firstAfter(ConcurrentLinkedQueue<long[]> times, long t) {
        long best = -1;
        for (long[] x : times) {
            if (x[0] - t > 0 && (best == -1 || x[1] - best < 0)) {
                best = x[1];
            }
        }
        return best;
    }

    /** Up to {@code n} acknowledged transaction ids never acked (for a failure message). */
    public List<String> lostSample(int n) {
        return acknowledged.stream().filter(t -> !acks.containsKey(t)).limit(n).toList();
    }

    @Override
    public void close() {
        producing.set(false);
        consuming.set(false);
        pool.shutdownNow();
    }

    private Outcome call(HttpRequest request) {
        return Outcome.of(HTTP, request, tolerateUnavailable);
    }

    private void refused(Refused r) {
        refusals.computeIfAbsent(r.why(), k -> new AtomicInteger()).incrementAndGet();
    }

    private String url(int slot) {
        return slots.get(Math.floorMod(slot, slots.length())).url();
    }

    private void produce(int id) {
        int slot = id;
        for (int seq = 0; producing.get(); seq++) {
            String txn = "p" + id + "-" + seq;
            String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"p" + (seq % partitions)
                    + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"txn\":\"" + txn + "\"}}]}";
            boolean retried = false;
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Thread.currentThread().isInterrupted()) {
                long sent = System.nanoTime();
                Outcome o = call(HttpRequest.newBuilder(URI.create(url(slot) + "/api/v1/push"))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(30)).build());
                if (o instanceof Refused r) {
                    refused(r);
                    retried = true;
                    slot++;
                    if (System.nanoTime() > giveUp) {
                        errors.add("push " + txn + " never answered");
                        break;
                    }
                    sleep(50);
                    continue;
                }
                if (o instanceof Answered a && a.status() == 201) {
                    String status = Api.json(a.body()).get(0).get("status").asText();
                    if (retried) {
                        pushRetries.incrementAndGet();
                    }
                    if (retried && "duplicate".equals(status) && !tolerateUnavailable) {
                        errors.add("push " + txn + " was committed but its client got no answer");
                    } else if (!"queued".equals(status) && !"duplicate".equals(status)) {
                        errors.add("push " + txn + ": " + a.body());
                    }
                    acknowledged.add(txn);
                    pushTimes.add(new long[] {sent, System.nanoTime()});
                    break;
                }
                errors.add("push " + txn + " to " + url(slot) + ": " + o);
                break;
            }
            sleep(2);
        }
    }

    private void consume(int id) {
        int slot = id;
        while (consuming.get() && !Thread.currentThread().isInterrupted()) {
            String base = url(slot);
            long sent = System.nanoTime();
            Outcome o = call(HttpRequest.newBuilder(URI.create(base + "/api/v1/pop/queue/" + queue
                    + "?batch=10&wait=true&timeout=1000")).GET().timeout(Duration.ofSeconds(30)).build());
            if (o instanceof Refused r) {
                refused(r);
                slot++;
                sleep(50);
                continue;
            }
            if (!(o instanceof Answered a) || (a.status() != 200 && a.status() != 204)) {
                errors.add("pop from " + base + ": " + o);
                sleep(100);
                continue;
            }
            if (a.status() == 204) {
                continue;
            }
            popTimes.add(new long[] {sent, System.nanoTime()});
            StringBuilder acksBody = new StringBuilder();
            List<String> txns = new ArrayList<>();
            for (JsonNode m : Api.json(a.body()).get("messages")) {
                String txn = m.get("transactionId").asText();
                txns.add(txn);
                deliveries.computeIfAbsent(txn, k -> new AtomicInteger()).incrementAndGet();
                acksBody.append(acksBody.length() == 0 ? "" : ",").append("{\"transactionId\":\"").append(txn)
                        .append("\",\"partitionId\":\"").append(m.get("partitionId").asText())
                        .append("\",\"leaseId\":\"").append(m.get("leaseId").asText())
                        .append("\",\"status\":\"completed\"}");
            }
            sleep(10);
            Outcome ack = call(HttpRequest.newBuilder(URI.create(base + "/api/v1/ack/batch"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"acknowledgments\":[" + acksBody + "]}"))
                    .timeout(Duration.ofSeconds(30)).build());
            if (ack instanceof Refused r) {
                refused(r);  // the batch comes back: its lease is released (or expires)
                slot++;
                continue;
            }
            if (!(ack instanceof Answered ackAns) || ackAns.status() != 200) {
                errors.add("ack to " + base + ": " + ack);
                continue;
            }
            JsonNode results = Api.json(ackAns.body());
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).get("success").asBoolean()) {
                    acks.computeIfAbsent(txns.get(i), k -> new AtomicInteger()).incrementAndGet();
                }
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
