package io.queen.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The storage invariants of the design, checked through {@code queen.storage_invariant_violations_v1()} and, for
 * Kafka share groups, {@code queen.kafka_share_check_v1()} (SQL functions, so an operator can run the same check). Run after tests that write concurrently.
 */
public final class StorageInvariants {
    private StorageInvariants() {
    }

    /** Every violation as "invariant partition: detail"; empty when the storage is consistent. */
    public static List<String> violations(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT invariant, partition_id, detail FROM queen.storage_invariant_violations_v1()"
                        + " UNION ALL SELECT 'share_records', partition_id, consumer_group || ': ' || problem"
                        + " FROM queen.kafka_share_check_v1()")) {
            while (rs.next()) {
                out.add(rs.getString(1) + " " + rs.getString(2) + ": " + rs.getString(3));
            }
        }
        return out;
    }

    public static List<String> violations(DataSource ds) {
        try (Connection c = ds.getConnection()) {
            return violations(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void assertHold(DataSource ds) {
        List<String> v = violations(ds);
        assertEquals(List.of(), v.size() > 20 ? v.subList(0, 20) : v, v.size() + " storage invariant violations");
    }

    public static void assertHold(String jdbcUrl, String user, String password) {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, password)) {
            List<String> v = violations(c);
            assertEquals(List.of(), v.size() > 20 ? v.subList(0, 20) : v, v.size() + " storage invariant violations");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
