package io.queen.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.queen.envelope.KafkaRecordFormat;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The storage invariants of the design, checked through {@code queen.storage_invariant_violations_v1()} and, for
 * Kafka share groups, {@code queen.kafka_share_check_v1()}, and for compacted partitions
 * {@code queen.compaction_invariant_violations_v1()} (SQL functions, so an operator can run the same check). Run after tests that write concurrently.
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
                        + " FROM queen.kafka_share_check_v1()"
                        + " UNION ALL SELECT invariant, partition_id, detail FROM queen.compaction_invariant_violations_v1()")) {
            while (rs.next()) {
                out.add(rs.getString(1) + " " + rs.getString(2) + ": " + rs.getString(3));
            }
        }
        compactedFrames(c, out);
        return out;
    }

    /**
     * The frame-level half of the compaction invariant, which SQL cannot see: in a compacted partition every segment
     * holds exactly end - base + 1 frames (a removed record is a hole, so offsets are positions), and no two kept
     * records of the clean section (offsets up to cleaned_to) share a key.
     */
    private static void compactedFrames(Connection c, List<String> out) throws SQLException {
        Map<String, Long> seen = new HashMap<>();
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT s.partition_id, s.base_offset, s.end_offset, s.blob,"
                        + " lc.cleaned_to FROM queen.log_compaction lc JOIN queen.log_segments s"
                        + " ON s.partition_id = lc.partition_id ORDER BY s.partition_id, s.base_offset")) {
            while (rs.next()) {
                String pid = rs.getString(1);
                long base = rs.getLong(2);
                long end = rs.getLong(3);
                List<Frame> frames = SegmentCodec.decode(rs.getBytes(4));
                if (frames.size() != end - base + 1) {
                    out.add("compaction " + pid + ": segment [" + base + ", " + end + "] holds " + frames.size()
                            + " frames");
                    continue;
                }
                for (int i = 0; base <= rs.getLong(5) && i < frames.size(); i++) {
                    Frame f = frames.get(i);
                    RecordEnvelope.Kafka k = f.isHole() || !f.kafkaRecord() || f.encrypted() ? null
                            : KafkaRecordFormat.decode(f.payload());
                    if (k != null && k.key() != null) {
                        Long other = seen.put(pid + HexFormat.of().formatHex(k.key()), base + i);
                        if (other != null) {
                            out.add("compaction " + pid + ": offsets " + other + " and " + (base + i)
                                    + " of the clean section share a key");
                        }
                    }
                }
            }
        }
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
