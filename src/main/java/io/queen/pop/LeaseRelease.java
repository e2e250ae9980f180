package io.queen.pop;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Gives back the leases this broker granted ({@code queen.log_release_leases_v1}): used by a stopping broker, after
 * its last request, so consumers on other brokers get those batches at once instead of after lease expiry. A lease
 * already acked, expired or re-claimed is left alone by the function; releasing spends no retry budget. One
 * transaction. Thread-safe.
 */
@ApplicationScoped
public class LeaseRelease {
    private final AgroalDataSource ds;
    private final LeaseDirectory leases;

    LeaseRelease(AgroalDataSource ds, LeaseDirectory leases) {
        this.ds = ds;
        this.leases = leases;
    }

    /** Releases every live lease this broker remembers granting; returns the number of cursor rows released. */
    public int releaseAll() throws SQLException {
        LeaseDirectory.Pairs pairs = leases.pairs();
        if (pairs.leaseIds().length == 0) {
            return 0;
        }
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT queen.log_release_leases_v1(?, ?)")) {
            ps.setArray(1, c.createArrayOf("uuid", pairs.partitionIds()));
            ps.setArray(2, c.createArrayOf("text", pairs.leaseIds()));
            int released;
            try (ResultSet rs = ps.executeQuery()) {
                released = rs.next() ? rs.getInt(1) : 0;
            }
            if (released > 0) {
                // other brokers' parked pops do not re-query on a timer: tell them the work is claimable now
                try (PreparedStatement n = c.prepareStatement("SELECT pg_notify('queen_push', ?)")) {
                    n.setString(1, PopWaiters.EVERYTHING);
                    n.execute();
                }
            }
            return released;
        }
    }
}
