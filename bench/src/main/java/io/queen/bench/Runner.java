package io.queen.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run against one {@link Driver}: warm-up, steady (push) phase, drain phase; producers and consumers
 * on virtual threads, every loop bounded by count and time.
 *
 * <pre>
 * t0 ── warm-up ──▶ A ── steady / push phase ──▶ B ── drain ──▶ C
 * </pre>
 * A: figures start (counters, CPU, Prometheus snapshot, latency recording on). B: producers finished
 * (duration over, or --messages pushed). C: every group received (and acked) every pushed message, or no
 * delivery for {@value #QUIET_SECONDS} s, or --drain-timeout. In --phased runs the consumers start at B.
 */
public final class Runner {

    static final int QUIET_SECONDS = 10;
    static final int PROGRESS_SECONDS = 5;

    private record Snap(Stats.Counts counts, ProcCpu.Sample broker, ProcCpu.Sample pg, long selfTicks) {}

    private final Config cfg;
    private final Driver driver;
    private final String runId;
    private final PrintStream out;
    private final List<String> groupNames;
    private final Stats stats;
    private final Verifier verifier;
    private final AtomicLong budget;
    private final Pickup pickup;
    private volatile boolean stopProducers;
    private volatile boolean stopConsumers;
    private volatile String phase = "warm-up";
    private final boolean perConsumerOrder;

    public Runner(Config cfg, Driver driver, String runId, PrintStream out) {
        this.cfg = cfg;
        this.driver = driver;
        this.runId = runId;
        this.out = out;
        this.groupNames = cfg.groupNames();
        this.stats = new Stats(groupNames.size());
        this.verifier = cfg.verify() ? new Verifier(groupNames.size(), cfg.producers()) : null;
        this.budget = new AtomicLong(cfg.messages());
        this.pickup = cfg.pickupLatency() ? new Pickup() : null;
        this.perConsumerOrder = cfg.autoAck()
                && (cfg.wildcard() || cfg.consumers() > cfg.queues() * cfg.partitions());
    }

    /** The (queue, partition) addresses of the run. */
    static List<Driver.Target> targets(Config cfg, String runId) {
        List<Driver.Target> t = new ArrayList<>();
        for (int q = 0; q < cfg.queues(); q++) {
            for (int p = 0; p < cfg.partitions(); p++) {
                t.add(new Driver.Target(QueenDriver.queueName(cfg.queue(), runId, q), "p" + p));
            }
        }
        return t;
    }

    /** Round-robin share of {@code items} for worker {@code c} of {@code n}; never empty when items exist. */
    static <T> List<T> share(List<T> items, int c, int n) {
        List<T> mine = new ArrayList<>();
        for (int i = c; i < items.size(); i += n) {
            mine.add(items.get(i));
        }
        if (mine.isEmpty() && !items.isEmpty()) {
            mine.add(items.get(c % items.size()));
        }
        return mine;
    }

    private List<Long> pgRoots() {
        if (!cfg.pgPids().isEmpty()) {
            return cfg.pgPids();
        }
        Jdbc.HostPort hp = Jdbc.hostPort(cfg.pgUrl());
        if (hp != null) {
            Long pm = ProcCpu.findListeningPid(hp.port());
            if (pm != null) {
                return List.of(pm);
            }
        }
        return List.of(); // fall back to every process named postgres
    }

    private Snap snap(Long brokerPid, List<Long> pgRoots) {
        Stats.Counts c = stats.counts();
        ProcCpu.Sample b = brokerPid == null ? ProcCpu.Sample.EMPTY : ProcCpu.sample(List.of(brokerPid));
        Set<Long> pg = ProcCpu.postgresPids(pgRoots, ProcCpu.allStats());
        if (cfg.pgPids().isEmpty()) {
            pg = ProcCpu.onlyDatabase(pg, Jdbc.database(cfg.pgUrl()));
        }
        ProcCpu.Sample p = ProcCpu.sample(pg, pgRoots);
        long self = ProcCpu.readStat(ProcessHandle.current().pid()).map(ProcCpu.Stat::cpuTicks).orElse(-1L);
        return new Snap(c, b, p, self);
    }

    public Report.Run run() throws Exception {
        List<Driver.Target> targets = targets(cfg, runId);
        List<String> queues = targets.stream().map(Driver.Target::queue).distinct().toList();
        out.printf("bench: %s run %s: setting up %d queue(s) x %d partitions%n", driver.name(), runId,
                cfg.queues(), cfg.partitions());
        driver.setup(targets);

        Long brokerPid = driver.brokerPid();
        List<Long> pgRoots = pgRoots();
        Long rssStart = brokerPid == null ? null : ProcCpu.vmRssKb(brokerPid);
        List<String> notes = new ArrayList<>();
        if (driver instanceof QueenDriver && brokerPid == null) {
            notes.add("broker process not found (give --broker-pid): broker CPU and RSS are n/a");
        }

        // Sessions are opened before the clock starts (JDBC connects are not part of the figures).
        List<Driver.ProducerSession> producers = new ArrayList<>();
        List<Runnable> consumerTasks = new ArrayList<>();
        List<Driver.ConsumerSession> consumerSessions = new ArrayList<>();
        try {
            for (int p = 0; p < cfg.producers(); p++) {
                producers.add(driver.producer(p));
            }
            int cid = 0;
            for (int g = 0; g < groupNames.size(); g++) {
                for (int c = 0; c < cfg.consumers(); c++) {
                    Driver.ConsumerSession s = driver.consumer(cid++, groupNames.get(g));
                    consumerSessions.add(s);
                    final int gi = g;
                    final int consumerId = cid - 1;
                    final List<Driver.Target> mine = cfg.wildcard() ? List.of() : share(targets, c, cfg.consumers());
                    final List<String> myQueues = cfg.wildcard() ? share(queues, c, cfg.consumers()) : List.of();
                    consumerTasks.add(() -> consume(gi, consumerId, s, mine, myQueues));
                }
            }

            // Without warm-up the figures start before the first request.
            Map<String, Double> promA = null;
            Snap a = null;
            if (cfg.warmup() == 0) {
                promA = driver.counters();
                stats.measuring = true;
                a = snap(brokerPid, pgRoots);
                phase = "steady";
            }
            long t0 = a != null ? a.counts().nanos() : System.nanoTime();
            long warmupEnd = t0 + TimeUnit.SECONDS.toNanos(cfg.warmup());
            long pushDeadline = cfg.messageBounded() ? t0 + TimeUnit.SECONDS.toNanos(cfg.timeLimit())
                    : warmupEnd + TimeUnit.SECONDS.toNanos(cfg.duration());

            ExecutorService producerPool = Executors.newVirtualThreadPerTaskExecutor();
            ExecutorService consumerPool = Executors.newVirtualThreadPerTaskExecutor();
            ExecutorService progressPool = Executors.newVirtualThreadPerTaskExecutor();
            progressPool.submit(() -> progress(t0));
            for (int p = 0; p < producers.size(); p++) {
                final int pi = p;
                final Driver.ProducerSession s = producers.get(p);
                producerPool.submit(() -> produce(pi, s, targets, t0, pushDeadline));
            }
            producerPool.shutdown();
            if (!cfg.phased()) {
                consumerTasks.forEach(consumerPool::submit);
            }

            // Warm-up: until its end, or until the producers are done (a short --messages run).
            while (System.nanoTime() - warmupEnd < 0 && !producerPool.isTerminated()) {
                producerPool.awaitTermination(Math.min(100, Math.max(1, (warmupEnd - System.nanoTime()) / 1_000_000)),
                        TimeUnit.MILLISECONDS);
            }
            if (a == null) {
                stats.measuring = true;
                a = snap(brokerPid, pgRoots);
                promA = driver.counters();
                phase = "steady";
            }

            // Push phase: producers stop by themselves (deadline / budget); bounded wait with a safety margin.
            long safety = Math.max(0, (pushDeadline - System.nanoTime()) / 1_000_000) + 60_000;
            if (!producerPool.awaitTermination(safety, TimeUnit.MILLISECONDS)) {
                stopProducers = true;
                producerPool.shutdownNow();
                producerPool.awaitTermination(35, TimeUnit.SECONDS);
                stats.error("producer-stuck");
            }
            Snap b = snap(brokerPid, pgRoots);
            Map<String, Double> promB = driver.counters();
            Driver.Storage storage = driver.storageAfterPush(stats.pushed.sum());
            phase = "drain";

            // Drain phase.
            long drainStart = System.nanoTime();
            if (cfg.phased()) {
                stats.lastDeliveryNanos.set(drainStart);
                consumerTasks.forEach(consumerPool::submit);
            }
            String drainEnd;
            if (consumerTasks.isEmpty()) {
                drainEnd = "no consumers";
            } else {
                long drainDeadline = drainStart + TimeUnit.SECONDS.toNanos(cfg.drainTimeout());
                while (true) {
                    if (complete()) {
                        drainEnd = "complete";
                        break;
                    }
                    long now = System.nanoTime();
                    long idleSince = Math.max(stats.lastDeliveryNanos.get(), drainStart);
                    if (now - idleSince > TimeUnit.SECONDS.toNanos(QUIET_SECONDS)) {
                        drainEnd = "no delivery for " + QUIET_SECONDS + " s";
                        break;
                    }
                    if (now - drainDeadline >= 0) {
                        drainEnd = "drain timeout " + cfg.drainTimeout() + " s";
                        break;
                    }
                    Thread.sleep(20);
                }
            }
            Snap c = snap(brokerPid, pgRoots);
            stopConsumers = true;
            consumerPool.shutdown();
            if (!consumerPool.awaitTermination(cfg.popWaitMs() + 40_000L, TimeUnit.MILLISECONDS)) {
                consumerPool.shutdownNow();
                stats.error("consumer-stuck");
            }
            phase = "done";
            progressPool.shutdownNow();
            progressPool.awaitTermination(5, TimeUnit.SECONDS);

            if (storage == null) {
                storage = driver.storageAtEnd(stats.pushed.sum());
            }
            if (storage == null) {
                storage = Driver.Storage.unavailable("n/a");
            }
            Long rssEnd = brokerPid == null ? null : ProcCpu.vmRssKb(brokerPid);

            Report.Verification verification = verification();
            PromScrape.SegmentFigures seg = (promA.isEmpty() || promB.isEmpty()) ? PromScrape.SegmentFigures.NA
                    : PromScrape.figures(promA, promB);
            if (driver instanceof QueenDriver && seg.messagesPerSegment() == null) {
                notes.add("segment figures n/a: the broker's /metrics/prometheus did not expose moving "
                        + PromScrape.MESSAGES + " / " + PromScrape.SEGMENTS + " / " + PromScrape.COMMITS);
            }
            if (cfg.consumers() == 0) {
                notes.add("push only (--consumers 0): delivery is not checked; the verification table's lost column"
                        + " counts undelivered messages and is not a failure");
            }
            if (verification.lost() > 0 && !"complete".equals(drainEnd)) {
                notes.add("lost counts every pushed message not delivered when the drain stopped (" + drainEnd
                        + "); if consumers were merely behind, raise --drain-timeout or pace producers with --rate");
            }
            if (stats.foreign.sum() > 0) {
                notes.add(stats.foreign.sum() + " deliveries were not from this run (acked, not verified)");
            }
            if (cfg.openLoop()) {
                notes.add(cfg.arrivalBatches()
                        ? "open loop, arrival batches: payload t is each message's arrival time and push latency is"
                                + " taken from the arrival of the push's first message (no coordinated omission)"
                        : "open loop: push latency and payload t are taken from the scheduled send time"
                                + " (no coordinated omission)");
            }
            if (pickup != null && pickup.poppedFirst() > 0) {
                notes.add(String.format(Locale.ROOT, "pickup latency: %,d of %,d messages were popped before their"
                        + " push's answer reached the producer (counted as 0 us)", pickup.poppedFirst(),
                        pickup.latency.getTotalCount()));
            }
            if (pgRoots.isEmpty()) {
                notes.add("CPU: no postmaster found, so PostgreSQL processes that exited mid-run are not counted");
            } else {
                notes.add(String.format(java.util.Locale.ROOT, "CPU: PostgreSQL processes that exited mid-run"
                        + " (autovacuum workers, short-lived backends; any database of the cluster) are counted"
                        + " from the postmaster's reaped-children time: %.2f s of the steady+drain figure",
                        ProcCpu.ticksToSeconds(ProcCpu.exitedTicks(a.pg(), c.pg()))));
            }
            if (a.selfTicks() >= 0 && c.selfTicks() >= 0) {
                // not part of any figure: it shares the machine with the broker and PostgreSQL
                double self = ProcCpu.ticksToSeconds(c.selfTicks() - a.selfTicks());
                double secs = Math.max(1e-9, (c.counts().nanos() - a.counts().nanos()) / 1e9);
                notes.add(String.format(java.util.Locale.ROOT,
                        "load generator (this tool) CPU, steady+drain: %.2f s (%.2f cores), not counted in the figures",
                        self, self / secs));
            }

            Report.Window steady = Report.Window.between(a.counts(), b.counts());
            Report.Window drain = Report.Window.between(b.counts(), c.counts());
            Report.Window cycle = Report.Window.between(a.counts(), c.counts());
            Report.Cpu cpu = cpu(brokerPid, pgRoots, a, b, c, cycle, steady);

            Report.Run run = new Report.Run(driver.name(), runId, cfg,
                    new Report.Phases(Report.round3((a.counts().nanos() - t0) / 1e9), steady.seconds(),
                            drain.seconds(), drainEnd),
                    steady, drain, cycle,
                    Report.Latency.of(stats.pushLatency), Report.Latency.of(stats.deliveryLatency),
                    pickup == null ? null : Report.Latency.of(pickup.latency),
                    stats.errorsByKind(), stats.errorTotal(),
                    new Report.Totals(stats.pushed.sum(), stats.buffered.sum(), stats.delivered.sum(),
                            stats.acked.sum(), stats.foreign.sum()),
                    verification, seg, cpu, storage, new Report.Rss(rssStart, rssEnd), notes);
            return run;
        } finally {
            stopProducers = true;
            stopConsumers = true;
            producers.forEach(Driver.ProducerSession::close);
            consumerSessions.forEach(Driver.ConsumerSession::close);
            if (cfg.cleanup()) {
                driver.cleanup();
            }
        }
    }

    private Report.Cpu cpu(Long brokerPid, List<Long> pgRoots, Snap a, Snap b, Snap c, Report.Window cycle,
                           Report.Window steady) {
        Double sb = brokerPid == null ? null : ProcCpu.ticksToSeconds(ProcCpu.deltaTicks(a.broker(), b.broker()));
        Double cb = brokerPid == null ? null : ProcCpu.ticksToSeconds(ProcCpu.deltaTicks(a.broker(), c.broker()));
        double sp = ProcCpu.ticksToSeconds(ProcCpu.deltaTicks(a.pg(), b.pg()) + ProcCpu.exitedTicks(a.pg(), b.pg()));
        double cp = ProcCpu.ticksToSeconds(ProcCpu.deltaTicks(a.pg(), c.pg()) + ProcCpu.exitedTicks(a.pg(), c.pg()));
        long count = cycle.acked();
        String basis = "acked";
        if (count == 0) {
            count = steady.pushed();
            basis = "pushed";
        }
        Double per = count > 0 ? Report.round3(((cb == null ? 0 : cb) + cp) * 1e6 / count) : null;
        List<Long> pgPids = new ArrayList<>(c.pg().pids());
        return new Report.Cpu(brokerPid, pgPids, round(sb), Report.round3(sp), round(cb), Report.round3(cp), per,
                count, basis);
    }

    private static Double round(Double d) {
        return d == null ? null : Report.round3(d);
    }

    private Report.Verification verification() {
        if (verifier == null) {
            return Report.Verification.off();
        }
        List<Verifier.GroupSummary> groups = verifier.summary(groupNames);
        long verified = 0;
        long lost = 0;
        long dup = 0;
        long redelivered = 0;
        long ooo = 0;
        boolean checkDelivery = cfg.consumers() > 0;
        for (Verifier.GroupSummary g : groups) {
            verified += g.delivered();
            lost += checkDelivery ? g.lost() : 0;
            dup += g.duplicates();
            redelivered += g.redelivered();
            ooo += g.outOfOrder();
        }
        return new Report.Verification(true, groups, verified, lost, dup, redelivered, ooo,
                lost == 0 && dup == 0 && ooo == 0);
    }

    /** Every group received every pushed message (and acked it, with explicit acks). */
    private boolean complete() {
        boolean explicit = cfg.ack() == Config.AckMode.EXPLICIT;
        for (int g = 0; g < groupNames.size(); g++) {
            if (verifier != null) {
                long pushed = verifier.pushedCount();
                if (verifier.deliveredCount(g) < pushed || (explicit && verifier.ackedCount(g) < pushed)) {
                    return false;
                }
            } else {
                long pushed = stats.pushed.sum();
                if (stats.groupDelivered[g].sum() < pushed || stats.groupAcked[g].sum() < pushed) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * One paced producer's messages arriving one by one ({@code --arrival-batches}): message k at
     * {@code first + k * gap} ns.
     */
    record Arrivals(long first, double gap) {
        long at(long k) {
            return first + (long) (k * gap);
        }

        /**
         * How many messages from {@code k} on have arrived by {@code now}, before {@code deadline}, at most
         * {@code cap}.
         */
        int since(long k, long now, long deadline, int cap) {
            int n = 0;
            while (n < cap && at(k + n) - now <= 0 && at(k + n) - deadline < 0) {
                n++;
            }
            return n;
        }
    }

    /** Takes up to {@code n} messages from the --messages budget: how many to push (0 = the budget is spent). */
    private int take(int n) {
        if (!cfg.messageBounded()) {
            return n;
        }
        long got = budget.getAndAdd(-n);
        return got <= 0 ? 0 : (int) Math.min(n, got);
    }

    private void produce(int p, Driver.ProducerSession session, List<Driver.Target> targets, long t0,
            long deadline) {
        boolean open = cfg.openLoop();
        boolean arriving = open && cfg.arrivalBatches();
        long interval = open ? (long) (cfg.pushBatch() * 1e9 * cfg.producers() / cfg.rate()) : 0;
        // Paced producers take evenly spread turns (producer p at p/producers of the interval): started in step,
        // they would all push at the same instant, a burst of `producers` requests per interval instead of a rate.
        long next = t0 + interval * p / cfg.producers();
        double gap = open ? 1e9 * cfg.producers() / cfg.rate() : 0;
        Arrivals arrivals = new Arrivals(t0 + (long) (gap * p / cfg.producers()), gap);
        long seq = 0;
        long k = p;
        try {
            while (!stopProducers && System.nanoTime() - deadline < 0) {
                int n = arriving ? 1 : take(cfg.pushBatch());
                if (n == 0) {
                    break;
                }
                long intended;
                if (open) {
                    intended = arriving ? arrivals.at(seq) : next;
                    if (intended - deadline >= 0) {
                        break;
                    }
                    long wait = intended - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                    if (arriving) {
                        // what arrived while this producer waited for its previous push's answer (at least one)
                        n = take(arrivals.since(seq, System.nanoTime(), deadline, cfg.pushBatch()));
                        if (n == 0) {
                            break;
                        }
                    }
                    next += interval;
                } else {
                    intended = System.nanoTime();
                }
                Driver.Target target = targets.get((int) (k++ % targets.size()));
                List<Driver.OutMessage> batch = new ArrayList<>(n);
                long firstSeq = seq;
                for (int i = 0; i < n; i++) {
                    long s = seq++;
                    long t = arriving ? arrivals.at(s) : open ? intended : System.nanoTime();
                    batch.add(new Driver.OutMessage(Payloads.transactionId(runId, p, s),
                            Payloads.payload(p, s, t, cfg.payloadBytes(), cfg.randomPad())));
                }
                long start = System.nanoTime();
                List<Driver.PushOutcome> res = session.push(target, batch);
                long end = System.nanoTime();
                boolean measuring = stats.measuring;
                if (measuring) {
                    Stats.recordMicros(stats.pushLatency, end - (open ? intended : start));
                }
                for (int i = 0; i < res.size(); i++) {
                    Driver.PushOutcome o = res.get(i);
                    switch (o.status()) {
                        case QUEUED, BUFFERED -> {
                            stats.pushed.increment();
                            if (o.status() == Driver.PushStatus.BUFFERED) {
                                stats.buffered.increment();
                            }
                            if (verifier != null) {
                                verifier.onPushed(p, firstSeq + i);
                            }
                            if (pickup != null) {
                                pickup.answered(p, firstSeq + i, end, measuring);
                            }
                        }
                        default -> stats.error(o.errorKind() == null ? "push-" + o.status() : o.errorKind());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            stats.error("producer-crash: " + e.getClass().getSimpleName());
        }
    }

    private void consume(int g, int consumerId, Driver.ConsumerSession session, List<Driver.Target> targets, List<String> queues) {
        boolean wildcard = cfg.wildcard();
        int n = wildcard ? queues.size() : targets.size();
        if (n == 0) {
            return;
        }
        boolean explicit = cfg.ack() == Config.AckMode.EXPLICIT;
        int idx = 0;
        int emptyStreak = 0;
        try {
            while (!stopConsumers) {
                String queue;
                Driver.Target target;
                if (wildcard) {
                    queue = queues.get(idx % n);
                    target = null;
                } else {
                    target = targets.get(idx % n);
                    queue = target.queue();
                }
                idx = (idx + 1) % n;
                // Long-poll only after a full sweep of this consumer's partitions came back empty.
                boolean wait = emptyStreak >= n - 1;
                Driver.PopResult r = session.pop(queue, target, cfg.popBatch(), wait ? cfg.popWaitMs() : 0);
                if (r.errorKind() != null) {
                    stats.error(r.errorKind());
                    Thread.sleep(100);
                    continue;
                }
                if (r.deliveries().isEmpty()) {
                    if (wait) {
                        emptyStreak = 0;
                        if (cfg.popWaitMs() == 0) {
                            Thread.sleep(10);
                        }
                    } else {
                        emptyStreak++;
                    }
                    continue;
                }
                emptyStreak = 0;
                handle(g, consumerId, session, r.deliveries(), explicit);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            stats.error("consumer-crash: " + e.getClass().getSimpleName());
        }
    }

    /** The consumer's work on {@code n} delivered messages ({@code --work-ms}): a sleep, as a worker waits on I/O. */
    private void work(int n) throws InterruptedException {
        long nanos = cfg.workNanos(n);
        if (nanos > 0) {
            Thread.sleep(java.time.Duration.ofNanos(nanos));
        }
    }

    private void handle(int g, int consumerId, Driver.ConsumerSession session, List<Driver.Delivery> ds,
                        boolean explicit) throws InterruptedException {
        long recv = System.nanoTime();
        int n = ds.size();
        stats.delivered.add(n);
        stats.groupDelivered[g].add(n);
        stats.lastDeliveryNanos.set(recv);
        boolean[] ours = new boolean[n];
        for (int i = 0; i < n; i++) {
            Driver.Delivery d = ds.get(i);
            Payloads.Stamp st = d.stamp();
            if (!Payloads.ours(d.transactionId(), runId, st) || st.producer() >= cfg.producers()) {
                stats.foreign.increment();
                continue;
            }
            ours[i] = true;
            Verifier.Kind kind = verifier == null ? null
                    : verifier.onDelivered(g, orderKey(d.partitionKey(), consumerId), st.producer(), st.seq());
            boolean first = kind == null || kind == Verifier.Kind.FIRST;
            if (stats.measuring && first) {
                Stats.recordMicros(stats.deliveryLatency, recv - st.nanos());
            }
            if (pickup != null && first) {
                pickup.popped(st.producer(), st.seq(), recv, stats.measuring);
            }
        }
        work(n); // then the ack: a job is acknowledged once it is done
        if (!explicit) {
            stats.acked.add(n);
            stats.groupAcked[g].add(n);
            stats.lastAckNanos.set(System.nanoTime());
            for (int i = 0; i < n; i++) {
                if (ours[i] && verifier != null) {
                    verifier.onAcked(g, ds.get(i).stamp().producer(), ds.get(i).stamp().seq());
                }
            }
            return;
        }
        List<Driver.AckOutcome> res = session.ack(ds);
        long ok = 0;
        for (int i = 0; i < res.size() && i < n; i++) {
            Driver.AckOutcome o = res.get(i);
            if (o.success()) {
                ok++;
                if (ours[i] && verifier != null) {
                    verifier.onAcked(g, ds.get(i).stamp().producer(), ds.get(i).stamp().seq());
                }
            } else {
                stats.error(o.errorKind() == null ? "ack-failed" : o.errorKind());
            }
        }
        stats.acked.add(ok);
        stats.groupAcked[g].add(ok);
        stats.lastAckNanos.set(System.nanoTime());
    }

    /**
     * Key for the order check. With auto-ack, a partition shared by several consumers of one group (wildcard
     * pops, or more consumers than partitions) hands consecutive spans to different consumers whose
     * bookkeeping can race, so the order is then checked per consumer (each consumer's pops are sequential
     * and the group cursor only moves forward). Otherwise it is checked per partition across consumers.
     */
    String orderKey(String partitionKey, int consumerId) {
        return perConsumerOrder ? partitionKey + "#c" + consumerId : partitionKey;
    }

    private void progress(long t0) {
        Stats.Counts prev = stats.counts();
        try {
            while (true) {
                Thread.sleep(PROGRESS_SECONDS * 1000L);
                Stats.Counts now = stats.counts();
                double dt = (now.nanos() - prev.nanos()) / 1e9;
                out.printf(Locale.ROOT,
                        "[%7.1fs %-7s] pushed %,d (%,.0f/s)  delivered %,d (%,.0f/s)  acked %,d (%,.0f/s)  errors %,d%n",
                        (now.nanos() - t0) / 1e9, phase, now.pushed(), (now.pushed() - prev.pushed()) / dt,
                        now.delivered(), (now.delivered() - prev.delivered()) / dt, now.acked(),
                        (now.acked() - prev.acked()) / dt, now.errors());
                prev = now;
            }
        } catch (InterruptedException e) {
            // stopped
        }
    }

    /** Exposed for tests. */
    Set<String> errorKinds() {
        return stats.errorsByKind().keySet();
    }
}
