import io.queen.bench.ProcCpu;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka-client soak load for bench/scripts/kafka-soak.sh: one topic of N partitions, P idempotent producers
 * (acks=all, default batching, null keys: the default partitioner; a closed loop: send() as fast as the client's
 * 32 MB buffer.memory lets it, or with at most --outstanding unacknowledged records per producer when > 0), C consumers in one group committing offsets
 * after every poll; the load starts once the broker serves every partition of the new topic. Values are
 * {"p":producer,"s":seq,"t":nanoTime,"pad":"xxx…"} padded to --value-bytes.
 *
 * t0 ── warm-up ──▶ A ── steady ──▶ B (producers stop sending; what they hold is flushed) ── drain ──▶ C (all consumed, or no progress 10 s, or
 * --drain-timeout after the flush). produced/s and consumed/s are counts A→B over B−A; CPU per message is (broker + PostgreSQL CPU
 * A→C) / records consumed A→C, as queen-bench does per acked message; consume latency = receive − t of records produced
 * after A. Verification: every record whose send was acknowledged is consumed exactly once (lost, duplicates,
 * out-of-order per (partition, producer), unconfirmed = consumed but its send failed).
 *
 * Run: java -cp 'bench/target/kafka-<v>/*:bench/target/queen-bench.jar' bench/scripts/KafkaSoak.java --bootstrap
 * host:port [--topic T] [--partitions 200] [--producers 8] [--consumers 8] [--value-bytes 256] [--seconds 30]
 * [--warmup 5] [--drain-timeout 60] [--outstanding 0] [--transactional 0] [--broker-pid PID] [--pg-port 5432 --pg-db DB]
 * [--label NAME] [--share [--release-every N] [--reject-every N]]
 *
 * --share: the consumers are members of one share group (KafkaShareConsumer, explicit acknowledgement, the group
 * configured to start at the earliest record) instead of a consumer group; each record is accepted, or (each N-th of
 * a producer's sequence) released once on its first delivery then accepted, or rejected. A rejected record counts as
 * delivered; order is not checked (a share group promises none).
 *
 * --cpu-probe (with --broker-pid and, for Queen, --pg-port/--pg-db; no load): the CPU counting of this report for a
 * load another client runs (bench/scripts/kafka_soak_rdkafka.py). Prints "ready", then for every line read from stdin
 * takes a snapshot and prints "cpu <broker s> <PostgreSQL s>", the CPU seconds since the first snapshot.
 *
 * --transactional N (N > 0): each producer is transactional (its own transactional.id) and commits N records per
 * transaction in a closed loop (begin, N sends, commit); its records count as acknowledged once their transaction
 * committed, and the consumers read with isolation.level=read_committed. transactions/s = produced/s / N.
 * Exit code 0: verification passed and no errors; 1 otherwise; 2 usage.
 */
public class KafkaSoak {
    static String bootstrap, topic = "soak-" + System.currentTimeMillis(), label = "run";
    static int partitions = 200, producers = 8, consumers = 8, valueBytes = 256, seconds = 30, warmup = 5,
            drainTimeout = 60, pgPort = 0, outstanding = 0, transactional = 0, releaseEvery = 0, rejectEvery = 0;
    /** Share-group consumers (KafkaShareConsumer, explicit acknowledgement) instead of a consumer group. */
    static boolean share;
    static Long brokerPid;
    static String pgDb;
    static boolean cpuProbe;

    static final LongAdder produced = new LongAdder(), consumed = new LongAdder(), duplicates = new LongAdder(),
            outOfOrder = new LongAdder(), released = new LongAdder(), rejected = new LongAdder();
    static final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    static BitSet[] acked, seen;
    static final Recorder latency = new Recorder(3);
    static volatile long measureFromNanos = Long.MAX_VALUE;
    static final AtomicBoolean producing = new AtomicBoolean(true), consuming = new AtomicBoolean(true);
    static final AtomicInteger assigned = new AtomicInteger();
    static final AtomicLong lastConsumeNanos = new AtomicLong(System.nanoTime());

    record Snap(long nanos, long produced, long consumed, ProcCpu.Sample broker, ProcCpu.Sample pg, long jitTicks) {}

    /** The JIT compiler threads of a HotSpot JVM (the broker's, Queen's or Apache Kafka's). */
    static final java.util.regex.Pattern JIT_THREADS = java.util.regex.Pattern.compile("^C[12] CompilerThre");

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--cpu-probe")) {
                cpuProbe = true;
                continue;
            }
            if (a.equals("--share")) {
                share = true;
                continue;
            }
            if (i + 1 >= args.length) usage("missing value for " + a);
            String v = args[++i];
            switch (a) {
                case "--bootstrap" -> bootstrap = v;
                case "--topic" -> topic = v;
                case "--label" -> label = v;
                case "--partitions" -> partitions = positive(a, v);
                case "--producers" -> producers = positive(a, v);
                case "--consumers" -> consumers = positive(a, v);
                case "--value-bytes" -> valueBytes = positive(a, v);
                case "--seconds" -> seconds = positive(a, v);
                case "--warmup" -> warmup = nonNegative(a, v);
                case "--drain-timeout" -> drainTimeout = positive(a, v);
                case "--outstanding" -> outstanding = nonNegative(a, v);
                case "--transactional" -> transactional = nonNegative(a, v);
                case "--release-every" -> releaseEvery = nonNegative(a, v);
                case "--reject-every" -> rejectEvery = nonNegative(a, v);
                case "--broker-pid" -> brokerPid = (long) positive(a, v);
                case "--pg-port" -> pgPort = positive(a, v);
                case "--pg-db" -> pgDb = v;
                default -> usage("unknown option " + a);
            }
        }
        acked = new BitSet[producers];
        seen = new BitSet[producers];
        for (int p = 0; p < producers; p++) {
            acked[p] = new BitSet();
            seen[p] = new BitSet();
        }
        Set<Long> pgRoots = Set.of();
        if (pgPort > 0) {
            Long pm = ProcCpu.findListeningPid(pgPort);
            if (pm == null) usage("no process listens on PostgreSQL port " + pgPort + " (needs root to read /proc/*/fd)");
            pgRoots = Set.of(pm);
        }
        if (cpuProbe) {
            probe(pgRoots);
            return;
        }
        if (bootstrap == null) usage("--bootstrap is required");

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            // A broker serves a new partition once it has applied its creation, which for a few hundred partitions
            // on a busy machine takes seconds: a produce before that is answered NOT_LEADER_OR_FOLLOWER, and around
            // that race idempotent producers of Apache Kafka 4.4.0's client were answered OUT_OF_ORDER_SEQUENCE_NUMBER
            // until their sends expired (delivery.timeout.ms). ListOffsets is answered once the partition is served;
            // the admin client retries it until then.
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (int p = 0; p < partitions; p++) ends.put(new TopicPartition(topic, p), OffsetSpec.latest());
            admin.listOffsets(ends).all().get();
            if (share) {
                // the share group reads from the earliest record (its default, latest, would race the producers)
                ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, topic + "-group");
                admin.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
                        new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                        .all().get();
            }
        }

        // consumers first, so the group owns every partition before the first record is sent
        long[] lastSeq = new long[partitions * producers];
        java.util.Arrays.fill(lastSeq, -1);
        List<Thread> consumerThreads = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            Thread t = new Thread(() -> {
                if (share) consumeShared();
                else consume(lastSeq);
            }, "consumer-" + c);
            t.start();
            consumerThreads.add(t);
        }
        long waitUntil = System.nanoTime() + 120_000_000_000L;
        while (!share && assigned.get() < partitions) {
            if (System.nanoTime() > waitUntil) fail("the group was not assigned all " + partitions + " partitions in 120 s (" + assigned.get() + ")");
            Thread.sleep(50);
        }
        System.err.printf("kafka-soak: group owns %d partitions; producing%n", share ? partitions : assigned.get());

        long t0 = System.nanoTime();
        long endNanos = t0 + (warmup + seconds) * 1_000_000_000L;
        List<Thread> producerThreads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread t = new Thread(() -> produce(id, endNanos), "producer-" + p);
            t.start();
            producerThreads.add(t);
        }
        Thread progress = Thread.ofPlatform().daemon().start(() -> progress(t0));

        sleepUntil(t0 + warmup * 1_000_000_000L);
        Snap a = snap(pgRoots);
        measureFromNanos = a.nanos;
        sleepUntil(endNanos);
        Snap b = snap(pgRoots);
        for (Thread t : producerThreads) t.join();

        long total = 0;
        for (BitSet s : acked) synchronized (s) { total += s.cardinality(); }
        long drainEnd = System.nanoTime() + drainTimeout * 1_000_000_000L;  // from the producers' flush
        while (true) {
            long got = 0;
            for (BitSet s : seen) synchronized (s) { got += s.cardinality(); }
            long now = System.nanoTime();
            if (got >= total || now > drainEnd || now - lastConsumeNanos.get() > 10_000_000_000L) break;
            Thread.sleep(20);
        }
        Snap c = snap(pgRoots);
        consuming.set(false);
        for (Thread t : consumerThreads) t.join(30_000);
        progress.interrupt();

        report(a, b, c, pgRoots);
    }

    static void produce(int id, long endNanos) {
        if (transactional > 0) {
            produceTransactions(id, endNanos);
            return;
        }
        Properties pr = new Properties();
        pr.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pr.put(ProducerConfig.ACKS_CONFIG, "all");
        pr.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        pr.put(ProducerConfig.CLIENT_ID_CONFIG, "soak-producer-" + id);
        BitSet mine = acked[id];
        java.util.concurrent.Semaphore window = outstanding == 0 ? null : new java.util.concurrent.Semaphore(outstanding);
        StringBuilder sb = new StringBuilder(valueBytes + 64);
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(pr, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long seq = 0; System.nanoTime() < endNanos; seq++) {
                long s = seq;
                if (window != null) window.acquireUninterruptibly();
                byte[] value = value(sb, id, s, System.nanoTime());
                producer.send(new ProducerRecord<>(topic, null, value), (md, e) -> {
                    if (window != null) window.release();
                    if (e != null) {
                        error("produce", e);
                    } else {
                        synchronized (mine) { mine.set((int) s); }
                        produced.increment();
                    }
                });
            }
            producer.flush();
        } catch (RuntimeException e) {
            errors.computeIfAbsent("producer: " + e, k -> new LongAdder()).increment();
        }
    }

    /** A transactional producer: begin, {@code transactional} sends, commit, until the end. */
    static void produceTransactions(int id, long endNanos) {
        Properties pr = new Properties();
        pr.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pr.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-producer-" + id);
        pr.put(ProducerConfig.CLIENT_ID_CONFIG, "soak-producer-" + id);
        BitSet mine = acked[id];
        StringBuilder sb = new StringBuilder(valueBytes + 64);
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(pr, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            for (long seq = 0; System.nanoTime() < endNanos; ) {
                long first = seq;
                try {
                    producer.beginTransaction();
                    for (int i = 0; i < transactional; i++, seq++) {
                        producer.send(new ProducerRecord<>(topic, null, value(sb, id, seq, System.nanoTime())));
                    }
                    producer.commitTransaction();
                    synchronized (mine) { mine.set((int) first, (int) seq); }
                    produced.add(seq - first);
                } catch (org.apache.kafka.common.errors.ProducerFencedException e) {
                    throw e;
                } catch (org.apache.kafka.common.KafkaException e) {
                    error("transaction", e);
                    producer.abortTransaction();
                }
            }
        } catch (RuntimeException e) {
            errors.computeIfAbsent("producer: " + e, k -> new LongAdder()).increment();
        }
    }

    /** Counts e by what failed and its class; the first of each kind goes to stderr whole, to tell what caused it. */
    static void error(String what, Exception e) {
        errors.computeIfAbsent(what + ": " + e.getClass().getSimpleName(), k -> {
            System.err.println("KafkaSoak: first " + k + ": " + e + (e.getCause() == null ? "" : " (cause: " + e.getCause() + ")"));
            return new LongAdder();
        }).increment();
    }

    static byte[] value(StringBuilder sb, int p, long s, long t) {
        sb.setLength(0);
        sb.append("{\"p\":").append(p).append(",\"s\":").append(s).append(",\"t\":").append(t).append(",\"pad\":\"");
        while (sb.length() < valueBytes - 2) sb.append('x');
        sb.append("\"}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The number after {@code "<key>":} in v. */
    static long field(byte[] v, char key) {
        for (int i = 0; i + 3 < v.length; i++) {
            if (v[i] == '"' && v[i + 1] == key && v[i + 2] == '"' && v[i + 3] == ':') {
                long n = 0;
                for (int j = i + 4; j < v.length && v[j] >= '0' && v[j] <= '9'; j++) n = n * 10 + (v[j] - '0');
                return n;
            }
        }
        throw new IllegalArgumentException("no field " + key + " in " + new String(v, StandardCharsets.UTF_8));
    }

    static void consume(long[] lastSeq) {
        Properties pr = new Properties();
        pr.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pr.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-group");
        pr.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        pr.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (transactional > 0) pr.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(pr, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                public void onPartitionsRevoked(Collection<TopicPartition> parts) { assigned.addAndGet(-parts.size()); }
                public void onPartitionsAssigned(Collection<TopicPartition> parts) { assigned.addAndGet(parts.size()); }
            });
            while (consuming.get()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (records.isEmpty()) continue;
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    byte[] v = r.value();
                    int p = (int) field(v, 'p');
                    int s = (int) field(v, 's');
                    long t = field(v, 't');
                    BitSet set = seen[p];
                    synchronized (set) {
                        if (set.get(s)) duplicates.increment();
                        else set.set(s);
                    }
                    int k = r.partition() * producers + p;
                    if (s < lastSeq[k]) outOfOrder.increment();
                    lastSeq[k] = s;
                    if (t >= measureFromNanos) latency.recordValue(Math.max(0, (now - t) / 1000));
                }
                consumed.add(records.count());
                lastConsumeNanos.set(now);
                consumer.commitAsync((offsets, e) -> {
                    if (e != null) error("commit", e);
                });
            }
            consumer.commitSync();
        } catch (RuntimeException e) {
            errors.computeIfAbsent("consumer: " + e, k -> new LongAdder()).increment();
        }
    }

    /**
     * A share-group member: explicit acknowledgement, every record accepted, except (--release-every N) each N-th
     * record of a producer on its first delivery, released (accepted when it comes again) and (--reject-every N)
     * each N-th, rejected (it counts as delivered: it is dead-lettered, not lost). A record counts as seen when
     * accepted or rejected; accepted twice is a duplicate. No order check: share groups promise none.
     */
    static void consumeShared() {
        Properties pr = new Properties();
        pr.put("bootstrap.servers", bootstrap);
        pr.put("group.id", topic + "-group");
        pr.put("share.acknowledgement.mode", "explicit");
        try (KafkaShareConsumer<byte[], byte[]> consumer =
                     new KafkaShareConsumer<>(pr, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (consuming.get()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (records.isEmpty()) continue;
                long now = System.nanoTime();
                int done = 0;
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    byte[] v = r.value();
                    int p = (int) field(v, 'p');
                    int s = (int) field(v, 's');
                    long t = field(v, 't');
                    short delivery = r.deliveryCount().orElse((short) 1);
                    if (releaseEvery > 0 && s % releaseEvery == 0 && delivery == 1) {
                        consumer.acknowledge(r, AcknowledgeType.RELEASE);
                        released.increment();
                        continue;
                    }
                    boolean reject = rejectEvery > 0 && s % rejectEvery == 1 % rejectEvery;
                    consumer.acknowledge(r, reject ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT);
                    if (reject) rejected.increment();
                    BitSet set = seen[p];
                    synchronized (set) {
                        if (set.get(s)) duplicates.increment();
                        else set.set(s);
                    }
                    done++;
                    if (t >= measureFromNanos && delivery == 1) latency.recordValue(Math.max(0, (now - t) / 1000));
                }
                consumed.add(done);
                lastConsumeNanos.set(now);
                consumer.commitAsync();
            }
            consumer.commitSync();
        } catch (RuntimeException e) {
            errors.computeIfAbsent("consumer: " + e, k -> new LongAdder()).increment();
        }
    }

    /** Finds the PostgreSQL pids first (a scan of /proc, slow on a busy machine), then reads counters and CPU together. */
    static Snap snap(Set<Long> pgRoots) {
        Set<Long> pids = pgRoots.isEmpty() ? Set.of()
                : ProcCpu.onlyDatabase(ProcCpu.postgresPids(pgRoots, ProcCpu.allStats()), pgDb);
        long nanos = System.nanoTime(), p = produced.sum(), c = consumed.sum();
        ProcCpu.Sample b = brokerPid == null ? new ProcCpu.Sample(Map.of(), Set.of()) : ProcCpu.sample(List.of(brokerPid));
        ProcCpu.Sample pg = pgRoots.isEmpty() ? new ProcCpu.Sample(Map.of(), Set.of()) : ProcCpu.sample(pids, pgRoots);
        long jit = brokerPid == null ? 0 : ProcCpu.threadTicks(brokerPid, JIT_THREADS);
        return new Snap(nanos, p, c, b, pg, jit);
    }

    /** See --cpu-probe. */
    static void probe(Set<Long> pgRoots) throws java.io.IOException {
        if (brokerPid == null) usage("--cpu-probe needs --broker-pid");
        var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        ProcCpu.clockTicksPerSecond();  // runs getconf once, now rather than between a snapshot and its reply
        System.out.println("ready");
        System.out.flush();
        Snap first = null;
        while (in.readLine() != null) {
            Snap s = snap(pgRoots);
            if (first == null) first = s;
            System.out.printf("cpu %.3f %.3f %.3f%n", brokerSeconds(first, s),
                    pgRoots.isEmpty() ? 0 : pgSeconds(first, s), ProcCpu.ticksToSeconds(s.jitTicks - first.jitTicks));
            System.out.flush();
        }
    }

    static double brokerSeconds(Snap x, Snap y) {
        return ProcCpu.ticksToSeconds(ProcCpu.deltaTicks(x.broker, y.broker));
    }

    static double pgSeconds(Snap x, Snap y) {
        return ProcCpu.ticksToSeconds(ProcCpu.deltaTicks(x.pg, y.pg) + ProcCpu.exitedTicks(x.pg, y.pg));
    }

    static void report(Snap a, Snap b, Snap c, Set<Long> pgRoots) {
        double steady = (b.nanos - a.nanos) / 1e9, all = (c.nanos - a.nanos) / 1e9;
        long prodAB = b.produced - a.produced, consAB = b.consumed - a.consumed, consAC = c.consumed - a.consumed;
        long lost = 0, unconfirmed = 0, total = 0;
        for (int p = 0; p < producers; p++) {
            BitSet l = (BitSet) acked[p].clone();
            total += l.cardinality();
            l.andNot(seen[p]);
            lost += l.cardinality();
            BitSet u = (BitSet) seen[p].clone();
            u.andNot(acked[p]);
            unconfirmed += u.cardinality();
        }
        long errs = errors.values().stream().mapToLong(LongAdder::sum).sum();
        System.out.printf("%s: topic %s, %d partitions, %d producers (%s), %d consumers in one %s%s, %d B values%n",
                label, topic, partitions, producers, transactional > 0
                        ? "transactional, " + transactional + " records per transaction" : "idempotent, acks=all",
                consumers, share ? "share group" : "group", transactional > 0 ? " (read_committed)" : "", valueBytes);
        if (share) {
            System.out.printf("%s: share group: %d deliveries released (--release-every %d), %d records rejected"
                    + " (--reject-every %d)%n", label, released.sum(), releaseEvery, rejected.sum(), rejectEvery);
        }
        System.out.printf("%s: steady %.1f s (after %d s warm-up), drain %.1f s%n", label, steady, warmup, all - steady);
        System.out.printf("%s: produced/s %.0f  consumed/s %.0f  (steady); consumed A->C %d%n",
                label, prodAB / steady, consAB / steady, consAC);
        if (transactional > 0) {
            System.out.printf("%s: transactions/s %.0f (committed, %d records each)%n", label,
                    prodAB / steady / transactional, transactional);
        }
        String cpu = "";
        if (brokerPid != null) {
            double bs = brokerSeconds(a, c);
            cpu = String.format("broker %.2f s = %.2f us/msg", bs, bs * 1e6 / Math.max(1, consAC));
            double ts = bs;
            if (!pgRoots.isEmpty()) {
                double ps = pgSeconds(a, c);
                ts += ps;
                cpu += String.format(", PostgreSQL %.2f s = %.2f us/msg, total %.2f us/msg", ps, ps * 1e6 / Math.max(1, consAC),
                        ts * 1e6 / Math.max(1, consAC));
            }
            System.out.printf("%s: CPU A->C per consumed message: %s%n", label, cpu);
            double js = ProcCpu.ticksToSeconds(c.jitTicks - a.jitTicks);
            System.out.printf("%s: of the broker's CPU A->C, JIT compiler threads %.2f s (%.0f%%)%n", label, js,
                    100 * js / Math.max(1e-9, bs));
        }
        Histogram h = latency.getIntervalHistogram();
        System.out.printf("%s: produce-to-consume latency us (records sent after A, %d): p50 %d  p99 %d  p99.9 %d  max %d%n",
                label, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), h.getMaxValue());
        Map<String, Long> errMap = new TreeMap<>();
        errors.forEach((k, v) -> errMap.put(k, v.sum()));
        if (!errMap.isEmpty()) System.out.printf("%s: errors %s%n", label, errMap);
        boolean ok = lost == 0 && duplicates.sum() == 0 && outOfOrder.sum() == 0 && errs == 0;
        System.out.printf("%s: verify: %d produced (acknowledged), %d consumed exactly once, %d lost, %d duplicated, "
                        + "%d out-of-order, %d unconfirmed, %d errors -> %s%n", label, total, total - lost, lost,
                duplicates.sum(), outOfOrder.sum(), unconfirmed, errs, ok ? "OK" : "FAILED");
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    static void progress(long t0) {
        long lp = 0, lc = 0;
        try {
            while (true) {
                Thread.sleep(5000);
                long p = produced.sum(), c = consumed.sum();
                System.err.printf("kafka-soak: %3.0f s produced %d (%d/s) consumed %d (%d/s)%n",
                        (System.nanoTime() - t0) / 1e9, p, (p - lp) / 5, c, (c - lc) / 5);
                lp = p;
                lc = c;
            }
        } catch (InterruptedException e) {
            // done
        }
    }

    static void sleepUntil(long nanos) throws InterruptedException {
        long d;
        while ((d = nanos - System.nanoTime()) > 0) Thread.sleep(Math.min(d / 1_000_000 + 1, 1000));
    }

    static int positive(String name, String v) {
        int n = nonNegative(name, v);
        if (n == 0) usage(name + " must be > 0");
        return n;
    }

    static int nonNegative(String name, String v) {
        try {
            int n = Integer.parseInt(v);
            if (n < 0) usage(name + " must be >= 0, got " + v);
            return n;
        } catch (NumberFormatException e) {
            usage(name + " needs a whole number, got '" + v + "'");
            return 0;
        }
    }

    static void usage(String msg) {
        System.err.println("KafkaSoak: " + msg);
        System.exit(2);
    }

    static void fail(String msg) {
        System.err.println("KafkaSoak: " + msg);
        System.exit(1);
    }
}
