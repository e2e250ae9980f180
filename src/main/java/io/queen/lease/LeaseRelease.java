package io.queen.lease;

import io.queen.sql.SqlCalls;
import io.queen.wakeup.WakePublisher;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;

/**
 * Gives back the leases this broker granted ({@code queen.log_release_leases_v1}): used by a stopping broker, after
 * its last request, so consumers on other brokers get those batches at once instead of after lease expiry. A lease
 * already acked, expired or re-claimed is left alone by the function; releasing spends no retry budget. The
 * release is one autocommitted call; the notification follows its commit. Thread-safe.
 */
@ApplicationScoped
public class LeaseRelease {
    private final SqlCalls sql;
    private final LeaseDirectory leases;

    LeaseRelease(SqlCalls sql, LeaseDirectory leases) {
        this.sql = sql;
        this.leases = leases;
    }

    /** Releases every live lease this broker remembers granting; returns the number of cursor rows released. */
    public int releaseAll() throws SQLException {
        LeaseDirectory.Pairs pairs = leases.pairs();
        if (pairs.leaseIds().length == 0) {
            return 0;
        }
        int released = (int) sql.number("SELECT queen.log_release_leases_v1(?, ?)", pairs.partitionIds(),
                pairs.leaseIds());
        if (released > 0) {
            // other brokers' parked pops do not re-query on a timer: tell them the work is claimable now
            sql.execute("SELECT pg_notify('queen_push', ?)", WakePublisher.EVERYTHING);
        }
        return released;
    }
}
