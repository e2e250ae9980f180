package io.queen.status;

import io.smallrye.config.ConfigMapping;

/**
 * Limits of the read-side admin routes (resources, status, consumer-group views). Defaults live in
 * {@code application.properties}.
 */
@ConfigMapping(prefix = "queen.status")
public interface StatusConfig {
    /** Largest accepted {@code limit} of a listing; a larger value is clamped to it, so no request is a full scan. */
    int maxLimit();

    /** A consumer group whose largest time lag exceeds this many seconds is reported {@code Lagging}. */
    int laggingStateSeconds();

    /** A status answer that took at least this long to compute is kept as a snapshot (0 = never keep any). */
    int snapshotThresholdMs();

    /** Kept snapshots are recomputed this often while asked for; one older than twice this is never served. */
    int snapshotRefreshMs();

    /** A snapshot nobody asked for during this long is dropped. */
    int snapshotIdleMs();

    /** Most snapshots kept (all tenants and routes); a costly answer beyond that is served fresh, not kept. */
    int snapshotMaxEntries();

    /** Most JSON the kept snapshots may hold, in MiB (a 10,000-partition queue detail is ~3 MiB). */
    int snapshotMaxMb();
}
