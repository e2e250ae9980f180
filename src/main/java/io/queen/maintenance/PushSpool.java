package io.queen.maintenance;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.queen.config.QueenConfig;
import io.queen.push.LogWriter;
import io.queen.push.PushHold;
import io.queen.push.PushItem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * This broker's durable push spool: while push maintenance is on, pushes are appended here (fsynced before the
 * client is answered {@code buffered}) instead of reaching the log; when it is off, a drainer replays them through
 * {@link LogWriter#replay} in spool order (so per partition in push order), with the transaction ids they were
 * given at spool time, so a replay interrupted by a crash is deduplicated when it is repeated (inside the queue's
 * dedup window). The spool survives {@code kill -9}: a broker restarted on the same directory drains it. It is the
 * write path's {@link PushHold}.
 *
 * <p>Files in {@code queen.maintenance.spool-dir}: {@code spool.log} (records {@code [int length][int crc32c][body]}
 * appended at {@code size}), {@code spool.pos} (the byte offset drained so far, rewritten after each committed
 * batch), {@code spool.lock} (held for the broker's lifetime: one broker per directory; it names the holder's pid and
 * port, which a second broker on the directory prints when it refuses to start). A torn tail (a record whose
 * append never completed, so whose client was never answered) is cut off at start. When the drain catches up, the
 * log is truncated to zero.
 *
 * <p>Invariants: {@code 0 <= pos <= size}; records in [pos, size) are exactly the buffered, not yet drained items;
 * {@code pending} counts them. Thread-safety: appends, the drainer's position moves and truncation are serialized on
 * {@code monitor}; the drainer alone reads records; {@link #pending} and the health flags are lock-free reads.
 */
@ApplicationScoped
public class PushSpool implements PushHold {
    private static final Logger LOG = Logger.getLogger(PushSpool.class);
    private static final byte VERSION = 1;
    private static final int FLAG_TRACE = 1;
    private static final int FLAG_ENCRYPTED = 2;
    private static final int FLAG_NULL_PAYLOAD = 4;
    private static final int FLAG_PRODUCER_SUB = 8;
    private static final int FLAG_KAFKA_RECORD = 16;
    /** The trace id is followed by the producer's span id (8 bytes) and trace flags (1 byte). */
    private static final int FLAG_SPAN = 32;
    /** The producer sub (or the message id) is followed by the message's key (u32 length, bytes). */
    private static final int FLAG_KEY = 64;

    private final MaintenanceSwitches switches;
    private final LogWriter writer;
    private final Path dir;
    private final int port;
    private final int drainBatch;
    private final long drainWaitMs;
    private final Object monitor = new Object();
    private final MeterRegistry registry;
    private final List<Gauge> gauges = new ArrayList<>();

    private FileChannel log;
    private FileChannel posFile;
    private FileChannel lockFile;
    private FileLock lock;
    private long size;
    private long pos;
    private volatile long pending;
    private volatile long failedAttempts;
    private volatile long drainedTotal;
    private volatile boolean healthy;
    private volatile boolean dbHealthy = true;
    private volatile boolean running;
    private Thread drainer;

    PushSpool(MaintenanceSwitches switches, LogWriter writer, QueenConfig config, MeterRegistry registry,
            @ConfigProperty(name = "quarkus.http.port") int port) {
        this.port = port;
        this.switches = switches;
        this.writer = writer;
        this.dir = Path.of(config.maintenance().spoolDir());
        this.drainBatch = Math.max(1, config.maintenance().drainBatch());
        this.drainWaitMs = Math.max(0, config.maintenance().drainWaitMs());
        this.registry = registry;
        gauges.add(Gauge.builder("queen.file.buffer.pending", this, s -> s.pending)
                .description("pushes spooled on this broker's disk and not yet written to the log").register(registry));
        gauges.add(Gauge.builder("queen.file.buffer.bytes", this, PushSpool::undrainedBytes)
                .description("bytes of spooled pushes on this broker's disk not yet written to the log").register(registry));
        gauges.add(Gauge.builder("queen.file.buffer.failed", this, s -> s.failedAttempts)
                .description("spool drain attempts that failed (the database refused or was unreachable)")
                .register(registry));
        gauges.add(Gauge.builder("queen.file.buffer.db.healthy", this, s -> s.dbHealthy ? 1 : 0)
                .description("1 when the spool's last drain attempt reached the database").register(registry));
    }

    void start(@Observes StartupEvent e) {
        try {
            open();
        } catch (IOException ex) {
            throw new UncheckedIOException("push spool: cannot open " + dir.toAbsolutePath()
                    + " (set QUEEN_SPOOL_DIR to a writable directory)", ex);
        }
        warnOfParentSpool();
        running = true;
        drainer = Thread.ofVirtual().name("push-spool-drain").start(this::drainLoop);
        if (pending > 0) {
            LOG.infof("push spool: %d buffered pushes found in %s; they are drained once push maintenance is read"
                    + " to be off", pending, dir.toAbsolutePath());
        }
    }

    void stop(@Observes ShutdownEvent e) {
        running = false;
        gauges.forEach(registry::remove);   // the registry can outlive this bean (tests restart the application)
        synchronized (monitor) {
            monitor.notifyAll();
        }
        if (drainer != null) {
            try {
                drainer.join(5_000);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            if (lock != null) {
                lock.release();
            }
            closeQuietly(log);
            closeQuietly(posFile);
            closeQuietly(lockFile);
        } catch (IOException ex) {
            LOG.debugf("push spool: close failed: %s", ex.getMessage());
        }
    }

    private static void closeQuietly(FileChannel c) throws IOException {
        if (c != null) {
            c.close();
        }
    }

    /** What the holder of a spool wrote into its lock file, as " (pid ..., port ..., since ...)", or "". */
    private static String holder(FileChannel lockFile) {
        try {
            ByteBuffer b = ByteBuffer.allocate(200);
            int n = lockFile.read(b, 0);
            String text = n <= 0 ? "" : new String(b.array(), 0, n, StandardCharsets.UTF_8).strip()
                    .replaceAll("\\p{Cntrl}", "?");
            return text.isEmpty() ? "" : " (" + text + ")";
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * A spool log left in the parent directory: where a broker ran with the parent as its spool directory (the
     * default once had no per-port part). Its pushes are drained by a broker started on that directory.
     */
    private void warnOfParentSpool() {
        Path parentLog = dir.toAbsolutePath().getParent() == null ? null
                : dir.toAbsolutePath().getParent().resolve("spool.log");
        try {
            if (parentLog != null && Files.isRegularFile(parentLog) && Files.size(parentLog) > 0) {
                LOG.warnf("push spool: %s holds buffered pushes (%d bytes) of a broker that ran on %s; start a"
                        + " broker with QUEEN_SPOOL_DIR=%s to write them to the log", parentLog, Files.size(parentLog),
                        parentLog.getParent(), parentLog.getParent());
            }
        } catch (IOException e) {
            LOG.debugf("push spool: cannot read %s: %s", parentLog, e.getMessage());
        }
    }

    private void open() throws IOException {
        Files.createDirectories(dir);
        lockFile = FileChannel.open(dir.resolve("spool.lock"), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        lock = lockFile.tryLock();
        if (lock == null) {
            String holder = holder(lockFile);
            lockFile.close();
            lockFile = null;
            String refusal = "push spool " + dir.toAbsolutePath() + " is in use by another broker" + holder
                    + ": every broker needs a spool directory of its own; give this one another QUEEN_SPOOL_DIR"
                    + " (the default, ~/.queen/spool/<port>, is one per port)";
            LOG.error(refusal);   // one line ahead of Quarkus' stack trace
            throw new IllegalStateException(refusal);
        }
        // who holds the directory, for the refusal a second broker on it prints
        lockFile.truncate(0);
        lockFile.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + ", port " + port + ", since "
                + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        log = FileChannel.open(dir.resolve("spool.log"), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        posFile = FileChannel.open(dir.resolve("spool.pos"), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        ByteBuffer b = ByteBuffer.allocate(8);
        pos = posFile.read(b, 0) == 8 ? b.flip().getLong() : 0;
        long fileSize = log.size();
        if (pos < 0 || pos > fileSize) {
            pos = 0;   // the log was truncated after a full drain and the broker stopped before pos was reset
        }
        // count the complete records from pos; a torn tail is cut off
        long at = pos;
        long count = 0;
        while (true) {
            long next = nextRecordEnd(at, fileSize);
            if (next < 0) {
                break;
            }
            at = next;
            count++;
        }
        if (at < fileSize) {
            LOG.warnf("push spool: cutting a torn tail of %d bytes (an append that was never acknowledged)",
                    fileSize - at);
            log.truncate(at);
            log.force(true);
        }
        size = at;
        pending = count;
        writePos(pos);
        healthy = true;
    }

    /** End offset of the complete, checksummed record starting at {@code at}, or -1. */
    private long nextRecordEnd(long at, long limit) throws IOException {
        if (at + 8 > limit) {
            return -1;
        }
        ByteBuffer h = ByteBuffer.allocate(8);
        readFully(h, at);
        int len = h.getInt(0);
        int crc = h.getInt(4);
        if (len <= 0 || at + 8 + len > limit) {
            return -1;
        }
        ByteBuffer body = ByteBuffer.allocate(len);
        readFully(body, at + 8);
        CRC32C c = new CRC32C();
        c.update(body.array());
        return (int) c.getValue() == crc ? at + 8 + len : -1;
    }

    private void readFully(ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining()) {
            if (log.read(b, at + b.position()) < 0) {
                throw new IOException("push spool: unexpected end of " + dir.resolve("spool.log"));
            }
        }
    }

    private void writePos(long p) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8).putLong(0, p);
        while (b.hasRemaining()) {
            posFile.write(b, b.position());
        }
        posFile.force(false);
    }

    /** Buffered pushes of this broker not yet in the log. */
    /** Bytes appended and not yet drained (the spool file between the drainer's position and its end). */
    private long undrainedBytes() {
        synchronized (monitor) {
            return size - pos;
        }
    }

    public long pending() {
        return pending;
    }

    public long failedAttempts() {
        return failedAttempts;
    }

    public long drainedTotal() {
        return drainedTotal;
    }

    /** The spool accepted its last write (and its directory is held). */
    public boolean healthy() {
        return healthy;
    }

    /** Whether the drainer's last attempt reached the database. */
    public boolean dbHealthy() {
        return dbHealthy;
    }

    public Path directory() {
        return dir;
    }

    /**
     * Appends the items of one request, durably (fsync) before returning: once this returns, the client may be
     * answered {@code buffered}. Throws when the disk refuses; nothing of the request is then counted.
     */
    @Override
    public void append(UUID tenant, List<PushItem> items) throws IOException {
        ByteBuffer buf = encode(tenant, items);
        synchronized (monitor) {
            try {
                long at = size;
                while (buf.hasRemaining()) {
                    at += log.write(buf, at);
                }
                log.force(false);
                size = at;
                pending += items.size();
                healthy = true;
                monitor.notifyAll();
            } catch (IOException ex) {
                healthy = false;
                try {
                    log.truncate(size);   // drop a partial append
                } catch (IOException ignored) {
                    // the next start cuts the torn tail
                }
                throw ex;
            }
        }
    }

    /**
     * Whether a push must be spooled instead of written to the log now: push maintenance is on, or pushes buffered
     * during it are still draining after {@code drain-wait-ms} ({@link #awaitDrained}): a push must not overtake
     * them. Reads the switches first if this broker has not read them yet ({@link MaintenanceSwitches#awaitKnown}).
     */
    @Override
    public boolean holdsPushes() throws SQLException, InterruptedException {
        switches.awaitKnown();
        return switches.pushMaintenance() || (pending() > 0 && !awaitDrained(drainWaitMs));
    }

    /**
     * Waits until the spool is empty or {@code millis} passed; true when empty. A push that arrives after push
     * maintenance ended waits here, so it cannot overtake what was buffered before it (per partition, the log
     * keeps push order), and producers are slowed to the drain's pace instead of growing the spool.
     */
    public boolean awaitDrained(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (monitor) {
            while (pending > 0) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0 || switches.pushMaintenance() || !switches.known()) {
                    return false;
                }
                monitor.wait(Math.min(left, 100));
            }
            return true;
        }
    }

    private void drainLoop() {
        long backoff = 100;
        boolean toldUnknown = false;
        while (running) {
            long from;
            long to;
            try {
                synchronized (monitor) {
                    // an unread switch is not "off": after a restart during push maintenance, draining on the
                    // default would deliver what maintenance holds back
                    while (running && (!switches.known() || switches.pushMaintenance() || pos >= size)) {
                        if (!toldUnknown && !switches.known() && pos < size) {
                            LOG.infof("push spool: %d buffered pushes wait for the first read of the maintenance"
                                    + " switches", pending);
                            toldUnknown = true;
                        }
                        monitor.wait(200);
                    }
                    if (!running) {
                        return;
                    }
                    from = pos;
                    to = size;
                }
            } catch (InterruptedException ie) {
                return;
            }
            try {
                List<Record> batch = read(from, to, drainBatch);
                long end = batch.get(batch.size() - 1).end();
                String error = push(batch);
                if (error != null) {
                    failedAttempts++;
                    if (dbHealthy) {
                        LOG.warnf("push spool: drain failed (%s); retrying with back-off", error);
                    }
                    dbHealthy = false;
                    Thread.sleep(backoff);
                    backoff = Math.min(5_000, backoff * 2);
                    continue;
                }
                if (!dbHealthy) {
                    LOG.info("push spool: drain resumed");
                }
                dbHealthy = true;
                backoff = 100;
                synchronized (monitor) {
                    pos = end;
                    pending -= batch.size();
                    drainedTotal += batch.size();
                    if (pos == size) {
                        log.truncate(0);
                        log.force(true);
                        size = 0;
                        pos = 0;
                        LOG.infof("push spool: drained (%d pushes in all since start)", drainedTotal);
                    }
                    writePos(pos);
                    monitor.notifyAll();
                }
            } catch (InterruptedException ie) {
                return;
            } catch (IOException | RuntimeException ex) {
                failedAttempts++;
                LOG.errorf("push spool: cannot read %s (%s); the drain stops until a restart",
                        dir.resolve("spool.log"), ex.toString());
                healthy = false;
                return;
            }
        }
    }

    private record Record(UUID tenant, PushItem item, long end) {
    }

    private List<Record> read(long from, long to, int max) throws IOException {
        List<Record> out = new ArrayList<>(Math.min(max, 1024));
        long at = from;
        while (at < to && out.size() < max) {
            ByteBuffer h = ByteBuffer.allocate(8);
            readFully(h, at);
            int len = h.getInt(0);
            ByteBuffer body = ByteBuffer.allocate(len);
            readFully(body, at + 8);
            body.flip();
            at += 8 + len;
            decode(body, at, out);
        }
        return out;
    }

    /** Writes one batch to the log, lane by lane in spool order; null when every item is in the log. */
    private String push(List<Record> batch) {
        record Lane(UUID tenant, String queue, String partition) {
        }
        Map<Lane, List<PushItem>> lanes = new LinkedHashMap<>();
        for (Record r : batch) {
            lanes.computeIfAbsent(new Lane(r.tenant(), r.item().queue(), r.item().partition()),
                    k -> new ArrayList<>()).add(r.item());
        }
        List<LogWriter.Lane> out = new ArrayList<>(lanes.size());
        lanes.forEach((k, items) -> out.add(new LogWriter.Lane(k.tenant(), k.queue(), k.partition(), items)));
        return writer.replay(out);
    }

    private static ByteBuffer encode(UUID tenant, List<PushItem> items) {
        int cap = 0;
        List<byte[]> bodies = new ArrayList<>(items.size());
        for (PushItem it : items) {
            byte[] q = it.queue().getBytes(StandardCharsets.UTF_8);
            byte[] p = it.partition().getBytes(StandardCharsets.UTF_8);
            byte[] t = it.transactionIdUtf8();
            byte[] payload = it.payload();
            byte[] sub = it.producerSubUtf8();
            byte[] key = it.key();
            int len = 1 + 16 + 4 + q.length + 4 + p.length + 4 + t.length + 1 + (it.traceId() == null ? 0 : 16) + (it.spanId() == 0 ? 0 : 9) + 16
                    + (sub == null ? 0 : 4 + sub.length) + (key == null ? 0 : 4 + key.length) + 4
                    + (payload == null ? 0 : payload.length);
            ByteBuffer b = ByteBuffer.allocate(len);
            b.put(VERSION).putLong(tenant.getMostSignificantBits()).putLong(tenant.getLeastSignificantBits());
            b.putInt(q.length).put(q).putInt(p.length).put(p).putInt(t.length).put(t);
            int flags = (it.traceId() != null ? FLAG_TRACE : 0) | (it.encrypted() ? FLAG_ENCRYPTED : 0)
                    | (payload == null ? FLAG_NULL_PAYLOAD : 0) | (sub != null ? FLAG_PRODUCER_SUB : 0)
                    | (it.kafkaRecord() ? FLAG_KAFKA_RECORD : 0) | (it.spanId() != 0 ? FLAG_SPAN : 0)
                    | (key != null ? FLAG_KEY : 0);
            b.put((byte) flags);
            if (it.traceId() != null) {
                b.putLong(it.traceId().getMostSignificantBits()).putLong(it.traceId().getLeastSignificantBits());
            }
            if (it.spanId() != 0) {
                b.putLong(it.spanId()).put(it.traceFlags());
            }
            b.putLong(it.messageId().getMostSignificantBits()).putLong(it.messageId().getLeastSignificantBits());
            if (sub != null) {
                b.putInt(sub.length).put(sub);
            }
            if (key != null) {
                b.putInt(key.length).put(key);
            }
            b.putInt(payload == null ? 0 : payload.length);
            if (payload != null) {
                b.put(payload);
            }
            bodies.add(b.array());
            cap += 8 + len;
        }
        ByteBuffer out = ByteBuffer.allocate(cap);
        for (byte[] body : bodies) {
            CRC32C c = new CRC32C();
            c.update(body);
            out.putInt(body.length).putInt((int) c.getValue()).put(body);
        }
        return out.flip();
    }

    private static void decode(ByteBuffer b, long end, List<Record> out) {
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalStateException("push spool: record version " + version + " unknown");
        }
        UUID tenant = new UUID(b.getLong(), b.getLong());
        String queue = string(b);
        String partition = string(b);
        byte[] txn = new byte[b.getInt()];
        b.get(txn);
        int flags = b.get();
        UUID trace = (flags & FLAG_TRACE) != 0 ? new UUID(b.getLong(), b.getLong()) : null;
        long span = (flags & FLAG_SPAN) != 0 ? b.getLong() : 0;
        byte traceFlags = (flags & FLAG_SPAN) != 0 ? b.get() : 0;
        UUID messageId = new UUID(b.getLong(), b.getLong());
        byte[] sub = null;
        if ((flags & FLAG_PRODUCER_SUB) != 0) {
            sub = new byte[b.getInt()];
            b.get(sub);
        }
        byte[] key = null;
        if ((flags & FLAG_KEY) != 0) {
            key = new byte[b.getInt()];
            b.get(key);
        }
        byte[] payload = new byte[b.getInt()];
        b.get(payload);
        out.add(new Record(tenant, new PushItem(out.size(), queue, partition, new String(txn, StandardCharsets.UTF_8),
                txn, trace, messageId, (flags & FLAG_NULL_PAYLOAD) != 0 ? null : payload,
                (flags & FLAG_ENCRYPTED) != 0, sub, (flags & FLAG_KAFKA_RECORD) != 0, span, traceFlags,
                key), end));
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getInt()];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
