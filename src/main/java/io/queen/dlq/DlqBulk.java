package io.queen.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.api.Bodies;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The bulk dead-letter actions: replay or delete every letter matching a {@link DlqFilter}, one bounded batch per
 * call (at most {@link #MAX_LIMIT} letters), oldest failure first, resuming after the key the previous call
 * answered and stopping at the newest letter of the count the operator confirmed ({@code until}), so letters filed
 * after that count are left for another action. A replay moves each letter with the single replay's transaction ({@link DlqReplay}), so a letter
 * replayed concurrently by another call moves once (the other finds it gone); a delete is one statement per batch.
 * Thread-safe (stateless apart from the injected beans).
 */
@ApplicationScoped
public class DlqBulk {
    private static final Logger LOG = Logger.getLogger(DlqBulk.class);
    /** Letters one call visits when the request names no {@code limit}. */
    static final int DEFAULT_LIMIT = 500;
    /** The most letters one call visits. */
    static final int MAX_LIMIT = 1000;

    /** One call's outcome; {@code last} is where the next call resumes (null: nothing was visited). */
    public record Outcome(int visited, int replayed, int duplicates, int gone, int deleted, DlqFilter.Key last,
            long remaining) {
    }

    /**
     * One call's request: which letters, where the previous call stopped (null: the start), the newest letter to
     * visit (null: no bound), how many at most.
     */
    public record Batch(DlqFilter filter, DlqFilter.Key after, DlqFilter.Key until, int limit) {
        /**
         * The filter fields, {@code after}, {@code until} and {@code limit} (1..{@value DlqBulk#MAX_LIMIT}) of a
         * request body.
         */
        static Batch of(JsonNode body) {
            return new Batch(DlqFilter.of(body), DlqFilter.Key.parse(Bodies.optionalString(body, "after")),
                    DlqFilter.Key.parse(Bodies.optionalString(body, "until"), "until", DlqFilter.Key.BAD_UNTIL),
                    Bodies.optionalInt(body, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT));
        }
    }

    @Inject DlqStore store;
    @Inject DlqReplay replay;

    /** Replays the next batch into its own partitions, or into {@code queue} (and {@code partition}) when given. */
    public Outcome replay(UUID tenant, Batch b, String queue, String partition) throws SQLException {
        DlqFilter f = b.filter();
        List<DlqStore.Mark> batch = store.batch(tenant, f, b.after(), b.until(), b.limit());
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
        DlqFilter.Key last = batch.isEmpty() ? b.after() : key(batch.get(batch.size() - 1));
        return logged(tenant, "replayed", new Outcome(batch.size(), moved, duplicates, gone, 0, last,
                store.count(tenant, f, last, b.until()).count()));
    }

    /** Deletes the next batch (the matching rows only). */
    public Outcome delete(UUID tenant, Batch b) throws SQLException {
        DlqStore.Deleted d = store.deleteBatch(tenant, b.filter(), b.after(), b.until(), b.limit());
        DlqFilter.Key last = d.last() == null ? b.after() : key(d.last());
        return logged(tenant, "deleted", new Outcome(d.deleted(), 0, 0, 0, d.deleted(), last,
                store.count(tenant, b.filter(), last, b.until()).count()));
    }

    /** One line per batch that did something (counts only: the filter's text is the client's). */
    private static Outcome logged(UUID tenant, String action, Outcome o) {
        if (o.visited() > 0) {
            LOG.infof("dead letters bulk-%s: tenant=%s visited=%d replayed=%d duplicates=%d gone=%d deleted=%d"
                    + " remaining=%d", action, tenant, o.visited(), o.replayed(), o.duplicates(), o.gone(),
                    o.deleted(), o.remaining());
        }
        return o;
    }

    private static DlqFilter.Key key(DlqStore.Mark m) {
        return new DlqFilter.Key(m.failedAt(), m.id());
    }
}
