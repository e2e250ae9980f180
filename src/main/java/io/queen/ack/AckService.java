package io.queen.ack;

import io.queen.api.Ids;
import io.queen.lease.AckRegistry;
import io.queen.lease.LeaseDirectory;
import io.queen.metrics.OpsMeter;
import io.queen.queue.Names;
import io.queen.segment.Frame;
import io.queen.crypto.PayloadCipher;
import io.queen.segment.SegmentCodec;
import io.queen.segment.TransactionHash;
import io.queen.wakeup.PopWaiters;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Applies acknowledgements: groups items by (partition, lease), runs the ack decision procedure
 * ({@code queen.log_ack_by_hash_v1}) per group in ascending (partition_id, group) order (the global lock order),
 * files the dead letter a failure asks for in the same transaction, and reports per item. Lease validation uses
 * the state at the start of the call, so all items of one popped batch validate against its lease.
 * Thread-safe (stateless); the caller owns the transaction.
 */
@Singleton
public class AckService {
    public static final String NOT_FOUND = "Message not found";

    private static final Logger LOG = Logger.getLogger(AckService.class);

    private final AckStore store;
    private final AckRegistry registry;
    private final AckFusion fusion;
    private final OpsMeter meter;

    private final PopWaiters waiters;
    private final LeaseDirectory leases;
    private final PayloadCipher cipher;

    AckService(AckStore store, AckRegistry registry, AckFusion fusion, OpsMeter meter, PopWaiters waiters,
            LeaseDirectory leases, PayloadCipher cipher) {
        this.cipher = cipher;
        this.waiters = waiters;
        this.leases = leases;
        this.store = store;
        this.meter = meter;
        this.registry = registry;
        this.fusion = fusion;
    }

    public record AckItem(int index, String transactionId, String partitionId, String status, String leaseId,
            String error) {
    }

    /**
     * {@code freedWork}: the ack ended a lease and may have left claimable work behind it (this broker's parked pops
     * must look); false when it ended none, or ended one on a partition it left with nothing more to claim while
     * nothing it could not see reached that partition ({@link PopWaiters#writeStamp}).
     */
    public record AckResult(int index, String transactionId, boolean success, String error, String queueName,
            String partitionName, boolean leaseReleased, boolean dlq, boolean freedWork) {
    }

    private record GroupKey(String pid, String lease) implements Comparable<GroupKey> {
        @Override
        public int compareTo(GroupKey o) {
            // canonical lowercase UUID text sorts like PostgreSQL's uuid order (unsigned bytes)
            int c = pid.compareTo(o.pid);
            return c != 0 ? c : lease.compareTo(o.lease);
        }
    }

    /**
     * An ack call that may name no consumer group ({@code group} null): each item is then for the group its lease
     * names (a lease id belongs to one (partition, group) cursor), queue mode for an item without a live lease.
     * The group comes from what this broker delivered, else from the cursor rows; items of several groups are
     * acknowledged group by group, each answer at its item's index.
     */
    public List<AckResult> acknowledge(UUID tenant, List<AckItem> items, String group) throws SQLException {
        if (group != null) {
            return acknowledgeFor(tenant, items, group);
        }
        Map<String, List<AckItem>> byGroup = groupsNamedByLeases(tenant, items);
        if (byGroup.size() == 1) {
            return acknowledgeFor(tenant, items, byGroup.keySet().iterator().next());
        }
        AckResult[] results = new AckResult[items.size()];
        for (Map.Entry<String, List<AckItem>> e : byGroup.entrySet()) {
            List<AckItem> part = new ArrayList<>(e.getValue().size());
            for (AckItem it : e.getValue()) {
                part.add(new AckItem(part.size(), it.transactionId(), it.partitionId(), it.status(), it.leaseId(),
                        it.error()));
            }
            List<AckResult> got = acknowledgeFor(tenant, part, e.getKey());
            for (int i = 0; i < part.size(); i++) {
                AckResult r = got.get(i);
                AckItem it = e.getValue().get(i);
                results[it.index()] = new AckResult(it.index(), r.transactionId(), r.success(), r.error(),
                        r.queueName(), r.partitionName(), r.leaseReleased(), r.dlq(), r.freedWork());
            }
        }
        return List.of(results);
    }

    /** The items by the consumer group their leases name (insertion order); queue mode where none is found. */
    private Map<String, List<AckItem>> groupsNamedByLeases(UUID tenant, List<AckItem> items) throws SQLException {
        String[] groups = new String[items.size()];
        List<UUID> askPids = null;
        List<String> askLeases = null;
        for (int i = 0; i < items.size(); i++) {
            AckItem it = items.get(i);
            // a popped batch's items are adjacent and share (partition, lease): one look-up per batch (an item
            // left null here is resolved with its batch's first from the cursor rows below)
            if (i > 0 && Objects.equals(it.partitionId(), items.get(i - 1).partitionId())
                    && Objects.equals(it.leaseId(), items.get(i - 1).leaseId())) {
                groups[i] = groups[i - 1];
                continue;
            }
            UUID pid = Ids.uuidOrNull(it.partitionId());
            if (pid == null || it.leaseId() == null || it.leaseId().isEmpty()) {
                groups[i] = Names.QUEUE_MODE;
                continue;
            }
            groups[i] = registry.groupOf(tenant, it.leaseId(), pid);
            if (groups[i] == null) {
                if (askPids == null) {
                    askPids = new ArrayList<>();
                    askLeases = new ArrayList<>();
                }
                askPids.add(pid);
                askLeases.add(it.leaseId());
            }
        }
        Map<String, String> found = askPids == null ? Map.of()
                : store.leaseGroups(tenant, askPids.toArray(new UUID[0]), askLeases.toArray(new String[0]));
        Map<String, List<AckItem>> out = new LinkedHashMap<>(2);
        for (int i = 0; i < items.size(); i++) {
            AckItem it = items.get(i);
            String g = groups[i];
            if (g == null) {
                g = found.getOrDefault(Ids.uuidOrNull(it.partitionId()) + "/" + it.leaseId(), Names.QUEUE_MODE);
            }
            out.computeIfAbsent(g, k -> new ArrayList<>()).add(it);
        }
        return out;
    }

    /**
     * An ack call ({@code /ack}, {@code /ack/batch}) for one consumer group: (partition, lease) groups that name
     * exactly a batch this broker delivered, all positive, commit positionally through {@link AckFusion} (shared
     * transactions, no sidecar lookup); everything else, and any group the positional commit refuses, runs the
     * decision procedure in one transaction of its own. Per-item answers are the same either way.
     */
    private List<AckResult> acknowledgeFor(UUID tenant, List<AckItem> items, String group) throws SQLException {
        AckResult[] results = new AckResult[items.size()];
        List<AckItem> rest = items;
        if (registry.enabled()) {
            rest = new ArrayList<>();
            Map<GroupKey, List<AckItem>> byLease = new HashMap<>();
            for (AckItem it : items) {
                UUID pid = Ids.uuidOrNull(it.partitionId());
                if (pid == null || it.leaseId() == null || it.leaseId().isEmpty() || !positive(it.status())) {
                    rest.add(it);
                } else {
                    byLease.computeIfAbsent(new GroupKey(pid.toString(), it.leaseId()), k -> new ArrayList<>()).add(it);
                }
            }
            List<AckFusion.Positional> positional = new ArrayList<>();
            List<List<AckItem>> positionalItems = new ArrayList<>();
            List<AckRegistry.Batch> positionalBatches = new ArrayList<>();
            for (Map.Entry<GroupKey, List<AckItem>> e : byLease.entrySet()) {
                UUID pid = UUID.fromString(e.getKey().pid());
                AckRegistry.Digest d = new AckRegistry.Digest();
                for (AckItem it : e.getValue()) {
                    d.add(TransactionHash.of(it.transactionId()));
                }
                AckRegistry.Batch b = registry.take(tenant, e.getKey().lease(), pid, group, d);
                if (b == null) {
                    rest.addAll(e.getValue());
                } else {
                    positional.add(new AckFusion.Positional(pid, group, b.lastOffset(), e.getKey().lease()));
                    positionalItems.add(e.getValue());
                    positionalBatches.add(b);
                }
            }
            if (!positional.isEmpty()) {
                // each partition's write stamp before the acks run: a push committed while they ran is counted
                // by then or after their commit, so an idle verdict can skip the wake-up only if the stamp is
                // unchanged after the commit
                long[] stamps = new long[positional.size()];
                for (int i = 0; i < positional.size(); i++) {
                    AckRegistry.Batch b = positionalBatches.get(i);
                    stamps[i] = waiters.writeStamp(tenant, b.queue(), b.partition());
                }
                List<AckFusion.Verdict> verdicts = null;
                try {
                    verdicts = fusion.commit(positional);
                } catch (SQLException ex) {
                    LOG.debugf("ack fusion failed (%s); the decision procedure answers instead", ex.getMessage());
                }
                for (int i = 0; i < positional.size(); i++) {
                    AckFusion.Verdict v = verdicts == null ? null : verdicts.get(i);
                    if (v == null || !v.ok()) {
                        rest.addAll(positionalItems.get(i));
                        continue;
                    }
                    AckRegistry.Batch b = positionalBatches.get(i);
                    AckStore.PartitionInfo pi = new AckStore.PartitionInfo(b.partition(), b.queue(), tenant);
                    boolean freed = v.released()
                            && (!v.idle() || waiters.writeStamp(tenant, b.queue(), b.partition()) != stamps[i]);
                    for (AckItem it : positionalItems.get(i)) {
                        results[it.index()] = ok(it, pi, v.released(), false, freed);
                    }
                }
            }
        }
        if (!rest.isEmpty()) {
            List<AckItem> decided = rest;
            store.inTransaction(c -> {
                applyInto(c, tenant, decided, group, false, results);
                return null;
            });
        }
        List<AckResult> out = List.of(results);
        count(tenant, items, out, group, false);
        return out;
    }

    /**
     * Counts committed acks per queue (one request per queue named, applied items by status, dead letters) and
     * logs one line per call that dead-lettered (an event worth an operator's eye, at most one line per request).
     * Call only after the acks committed.
     */
    public void count(UUID tenant, List<AckItem> items, List<AckResult> results, String group, boolean inTransaction) {
        String last = null;
        OpsMeter.QueueMeter qm = null;
        List<String> seen = new ArrayList<>(2);
        // queues where a lease ended -> the partitions where one of those acks may have left claimable work
        Map<String, Set<String>> freed = null;
        String endedPid = null;
        String endedLease = null;
        int dlq = 0;
        String dlqQueue = null;
        String dlqTxn = null;
        for (AckItem it : items) {
            AckResult r = results.get(it.index());
            if (r == null) {
                continue;
            }
            String q = r.queueName();
            if (last == null || !last.equals(q)) {
                last = q;
                qm = meter.queue(tenant, q);
                if (!inTransaction && !seen.contains(q)) {
                    seen.add(q);
                    qm.increment(OpsMeter.ACK_REQUESTS);
                }
            }
            if (!r.success()) {
                continue;
            }
            if (r.leaseReleased()) {
                if (freed == null) {
                    freed = new LinkedHashMap<>(2);
                }
                Set<String> parts = freed.computeIfAbsent(q, k -> new LinkedHashSet<>(2));
                if (r.freedWork()) {
                    parts.add(r.partitionName() == null ? "" : r.partitionName());
                }
                // a batch's items are adjacent: one directory update per (partition, lease) it names
                if (!Objects.equals(it.partitionId(), endedPid) || !Objects.equals(it.leaseId(), endedLease)) {
                    endedPid = it.partitionId();
                    endedLease = it.leaseId();
                    UUID pid = Ids.uuidOrNull(endedPid);
                    if (pid != null && endedLease != null) {
                        leases.ended(endedLease, pid);
                    }
                }
            }
            qm.increment(positive(it.status()) ? OpsMeter.ACK_MESSAGES : OpsMeter.ACK_FAILED);
            if (r.dlq()) {
                qm.increment(OpsMeter.DLQ);
                if (dlq++ == 0) {
                    dlqQueue = q;
                    dlqTxn = it.transactionId();
                }
            }
        }
        if (freed != null) {
            // a lease ended: the rest of its partition (or the failed batch) is claimable now, by this group only,
            // and parked pops do not re-query on a timer. One that left its partition empty wakes no pop here
            // (none could claim anything), but other brokers still hear of it: a push they took while the ack ran
            // may be waiting for exactly this lease to end.
            for (Map.Entry<String, Set<String>> e : freed.entrySet()) {
                if (e.getValue().isEmpty()) {
                    waiters.publish(tenant, e.getKey());
                } else if (group == null || e.getValue().contains("")) {
                    waiters.freed(tenant, e.getKey());
                } else {
                    waiters.freed(tenant, e.getKey(), group, e.getValue());
                }
            }
        }
        if (dlq > 0) {
            LOG.infof("dead-lettered %d message(s): tenant=%s queue=%s consumerGroup=%s firstTransactionId=%s", dlq,
                    tenant, dlqQueue,
                    group, dlqTxn);
        }
    }

    private static final Set<String> POSITIVE = Set.of("completed", "success", "acked", "ok");

    /** A status as the decision procedure reads it: lower case, absent or blank meaning {@code completed}. */
    static String normalized(String status) {
        return status == null || status.isBlank() ? "completed" : status.toLowerCase();
    }

    static boolean positive(String status) {
        return POSITIVE.contains(normalized(status));
    }

    /**
     * @param failuresDeadLetter true inside a transaction: a failed ack dead-letters at once (no retry budget).
     */
    public List<AckResult> apply(Connection c, UUID tenant, List<AckItem> items, String group,
            boolean failuresDeadLetter) throws SQLException {
        AckResult[] results = new AckResult[items.size()];
        applyInto(c, tenant, items, group, failuresDeadLetter, results);
        return List.of(results);
    }

    /**
     * The decision procedure for {@code items}; answers land in {@code results} at each item's index. A partition
     * of another tenant answers exactly like a partition that does not exist (no cursor, no names).
     */
    private void applyInto(Connection c, UUID tenant, List<AckItem> items, String group, boolean failuresDeadLetter,
            AckResult[] results) throws SQLException {
        TreeMap<GroupKey, List<AckItem>> groups = new TreeMap<>();
        Set<UUID> pids = new HashSet<>();
        for (AckItem it : items) {
            UUID pid = Ids.uuidOrNull(it.partitionId());
            if (pid == null) {
                results[it.index()] = fail(it, NOT_FOUND);
                continue;
            }
            pids.add(pid);
            groups.computeIfAbsent(new GroupKey(pid.toString(), it.leaseId() == null ? "" : it.leaseId()),
                    k -> new ArrayList<>()).add(it);
        }
        Map<UUID, AckStore.PartitionInfo> info = pids.isEmpty() ? Map.of()
                : store.partitionInfo(c, pids.toArray(new UUID[0]));
        for (Map.Entry<GroupKey, List<AckItem>> e : groups.entrySet()) {
            UUID pid = UUID.fromString(e.getKey().pid());
            List<AckItem> g = e.getValue();
            AckStore.PartitionInfo owner = info.get(pid);
            if (owner != null && !tenant.equals(owner.tenant())) {
                for (AckItem it : g) {
                    results[it.index()] = fail(it, noCursor(group));
                }
                continue;
            }
            byte[][] hashes = new byte[g.size()][];
            String[] statuses = new String[g.size()];
            for (int i = 0; i < g.size(); i++) {
                hashes[i] = TransactionHash.of(g.get(i).transactionId());
                String st = normalized(g.get(i).status());
                statuses[i] = failuresDeadLetter && st.equals("failed") ? "dlq" : st;
            }
            List<AckStore.AckRow> rows = store.ackByHash(c, pid, group, e.getKey().lease(), hashes, statuses);
            boolean filed = false;
            Long dlqOff = rows.isEmpty() ? null : rows.get(0).dlqOffset();
            if (dlqOff != null) {
                String error = null;
                for (AckStore.AckRow r : rows) {
                    if (dlqOff.equals(r.offset()) && g.get(r.ord() - 1).error() != null) {
                        error = g.get(r.ord() - 1).error();
                        break;
                    }
                }
                fileDeadLetter(c, pid, group, dlqOff, error);
                filed = true;
            }
            AckStore.PartitionInfo pi = info.get(pid);
            for (AckStore.AckRow r : rows) {
                AckItem it = g.get(r.ord() - 1);
                boolean released = r.leaseReleased() || filed;
                results[it.index()] = switch (r.outcome()) {
                    case "acked", "noop", "nacked", "superseded", "dropped" -> ok(it, pi, released, false);
                    case "dlq" -> ok(it, pi, released, true);
                    case "not_committed" -> fail(it, pi, "Not committed: an earlier message of this partition"
                            + " failed in the same call and will be redelivered");
                    case "stale" -> fail(it, pi, "Message already committed");
                    case "invalid_lease" -> fail(it, pi, "Invalid or expired lease");
                    case "bad_status" -> fail(it, pi, "Unknown status: " + it.status());
                    case "no_cursor" -> fail(it, pi, noCursor(group));
                    default -> fail(it, pi, NOT_FOUND);
                };
            }
        }
    }

    /** Snapshot of the poison frame (payload copy, no pointer) into queen.log_dlq; moves the cursor past it. */
    private void fileDeadLetter(Connection c, UUID pid, String group, long off, String error) throws SQLException {
        AckStore.Segment s = store.segmentAt(c, pid, off);
        Frame f = null;
        if (s != null && off <= s.endOffset()) {
            f = SegmentCodec.decode(s.blob(), (int) (off - s.baseOffset()), 1).get(0);
            f = f.isHole() ? null : f;  // removed by compaction: filed like a record whose segment is gone
        }
        store.fileDeadLetter(c, new AckStore.DeadLetter(pid, group, off, f == null ? null : f.messageId(),
                f == null ? null : f.transactionId(),
                f == null ? null : new String(cipher.deadLetterPayload(f), StandardCharsets.UTF_8),
                error == null ? "Retries exhausted" : error, f == null ? null : f.traceId(),
                f == null ? null : f.producerSub(), s == null ? null : s.createdAt(), f == null ? null : f.key()));
    }

    private static String noCursor(String group) {
        return NOT_FOUND + " (consumer group " + group + " has no cursor on this partition)";
    }

    /** A success of the decision procedure: a lease it ended may have left work behind (it does not know). */
    private static AckResult ok(AckItem it, AckStore.PartitionInfo pi, boolean released, boolean dlq) {
        return ok(it, pi, released, dlq, released);
    }

    private static AckResult ok(AckItem it, AckStore.PartitionInfo pi, boolean released, boolean dlq,
            boolean freedWork) {
        return new AckResult(it.index(), it.transactionId(), true, null, pi == null ? null : pi.queue(),
                pi == null ? null : pi.partition(), released, dlq, freedWork);
    }

    private static AckResult fail(AckItem it, AckStore.PartitionInfo pi, String error) {
        return new AckResult(it.index(), it.transactionId(), false, error, pi == null ? null : pi.queue(),
                pi == null ? null : pi.partition(), false, false, false);
    }

    private static AckResult fail(AckItem it, String error) {
        return fail(it, null, error);
    }
}
