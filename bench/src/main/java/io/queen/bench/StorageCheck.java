package io.queen.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * After a verified Queen run: the broker's storage invariants, read through its own diagnostic function
 * {@code queen.storage_invariant_violations_v1()} (disjoint contiguous ranges, monotone created_at, sidecar mirror,
 * cursor bounds, watermarks, no orphan rows) and {@code queen.kafka_share_check_v1()} (share-group records) and
 * {@code queen.compaction_invariant_violations_v1()} (compacted partitions). Stateless.
 */
final class StorageCheck {
    private StorageCheck() {
    }

    /** Every violation as one line; an empty list when the invariants hold. Throws when it cannot check. */
    static List<String> violations(String pgUrl) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = Jdbc.connect(pgUrl); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT invariant, partition_id, detail FROM queen.storage_invariant_violations_v1()"
                        + " UNION ALL SELECT 'share_records', partition_id, consumer_group || ': ' || problem"
                        + " FROM queen.kafka_share_check_v1()"
                        + " UNION ALL SELECT invariant, partition_id, detail FROM queen.compaction_invariant_violations_v1()")) {
            while (rs.next()) {
                out.add(rs.getString(1) + " " + rs.getString(2) + ": " + rs.getString(3));
            }
        }
        return out;
    }
}
