package io.queen.dlq;

import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * The bulk dead-letter actions: replay or delete every letter matching a {@link DlqFilter}, one bounded batch per
 * call (at most {@link #MAX_LIMIT} letters), oldest failure first, resuming after the key the previous call
 * answered. A replay moves each letter with the single replay's transaction ({@link DlqReplay}), so a letter
 * replayed concurrently by another call moves once (the other finds it gone); a delete is one statement per batch.
 * Thread-safe (stateless apart from the injected beans).
 */
@ApplicationScoped
public class DlqBulk {
    /** Letters one call visits when the request names no {@code limit}. */
    static final int DEFAULT_LIMIT = 500;
    /** The most letters one call visits. */
    static final int MAX_LIMIT = 1000;

    /** One call's outcome; {@code last} is where the next call resumes (null: nothing was visited). */
    public record Outcome(int visited, int replayed, int duplicates, int gone, int deleted, DlqFilter.Key last,
            long remaining) {
    }

    private final DlqStore store;
    private final DlqReplay replay;

    DlqBulk(DlqStore store, DlqReplay replay) {
        this.store = store;
        this.replay = replay;
    }

    /** Replays the next batch into its own partitions, or into {@code queue} (and {@code partition}) when given. */
    public Outcome replay(UUID tenant, DlqFilter f, DlqFilter.Key after, int limit, String queue, String partition)
            throws SQLException {
        List<DlqStore.Mark> batch = store.batch(tenant, f, after, limit);
        int moved = 0;
        int duplicates = 0;
        int gone = 0;
        for (DlqStore.Mark m : batch) {
            switch (replay.replay(tenant, m.id(), queue, partition).verdict()) {
                case MOVED -> moved++;
                case DUPLICATE -> duplicates++;
                case GONE -> gone++;
            }
        }
        DlqFilter.Key last = batch.isEmpty() ? after : key(batch.get(batch.size() - 1));
        return new Outcome(batch.size(), moved, duplicates, gone, 0, last, store.count(tenant, f, last));
    }

    /** Deletes the next batch (the matching rows only). */
    public Outcome delete(UUID tenant, DlqFilter f, DlqFilter.Key after, int limit) throws SQLException {
        DlqStore.Deleted d = store.deleteBatch(tenant, f, after, limit);
        DlqFilter.Key last = d.last() == null ? after : key(d.last());
        return new Outcome(d.deleted(), 0, 0, 0, d.deleted(), last, store.count(tenant, f, last));
    }

    private static DlqFilter.Key key(DlqStore.Mark m) {
        return new DlqFilter.Key(m.failedAt(), m.id());
    }
}
