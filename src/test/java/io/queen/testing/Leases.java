package io.queen.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Lease time passed without waiting: a lease is live while its cursor row's {@code lease_expires_at} is in the
 * future, so moving that back by a duration is what that much time would leave. Only for behaviour that reads the
 * cursor rows, not for a broker-side timer. Stateless.
 */
public final class Leases {
    private Leases() {
    }

    /** Expires every live lease on the cursors of {@code queue} (all partitions, all groups); returns how many. */
    public static int expire(DataSource ds, String queue) {
        return age(ds, queue, Duration.ofDays(1));
    }

    /** Brings every live lease on the cursors of {@code queue} {@code passed} closer to its end; returns how many. */
    public static int age(DataSource ds, String queue, Duration passed) {
        String sql = "UPDATE queen.log_consumers c SET lease_expires_at = c.lease_expires_at - ? * interval '1 millisecond'"
                + " FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id"
                + " WHERE p.id = c.partition_id AND q.name = ? AND c.batch_end IS NOT NULL AND c.lease_expires_at > now()";
        try (Connection c = ds.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setLong(1, passed.toMillis());
            st.setString(2, queue);
            return st.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
