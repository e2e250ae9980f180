package io.queen.compaction;

import io.queen.config.QueenConfig;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A queue's compaction settings, the Kafka topic configs of the same names, kept in queen.queue_compaction (NULL =
 * the broker default, {@code queen.compaction.*}); the Kafka config APIs and the HTTP queue configure route read and
 * change them here, so both speak the same names, checks and defaults. Thread-safe (stateless).
 */
@ApplicationScoped
public class CompactionSettings {
    public static final String MIN_LAG = "min.compaction.lag.ms";
    public static final String MAX_LAG = "max.compaction.lag.ms";
    public static final String DELETE_RETENTION = "delete.retention.ms";
    public static final String MIN_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    /** The settings, in the order they are described. */
    public static final List<String> NAMES = List.of(MIN_LAG, MAX_LAG, DELETE_RETENTION, MIN_DIRTY_RATIO);
    /** Their names in the HTTP API ({@code POST /api/v1/configure}'s {@code compaction}), in the same order. */
    public static final List<String> WIRE_NAMES = List.of("minCompactionLagMs", "maxCompactionLagMs",
            "deleteRetentionMs", "minCleanableDirtyRatio");
    public static final String DELETE = "delete";
    public static final String COMPACT = "compact";

    /** One setting's effective value; {@code isDefault} when the queue sets none of its own. */
    public record Setting(String name, String value, boolean isDefault) {
    }

    private final SqlCalls sql;
    private final QueenConfig.Compaction defaults;

    CompactionSettings(SqlCalls sql, QueenConfig config) {
        this.sql = sql;
        this.defaults = config.compaction();
    }

    /** Whether {@code name} is one of these settings. */
    public static boolean known(String name) {
        return NAMES.contains(name);
    }

    /**
     * A cleanup.policy value, a list of {@code delete} and {@code compact} (Kafka's), normalized to {@code delete},
     * {@code compact} or {@code compact,delete}; anything else throws IllegalArgumentException.
     */
    public static String policy(String value) {
        boolean delete = false;
        boolean compact = false;
        boolean unknown = value == null;
        for (String item : value == null ? new String[0] : value.split(",", -1)) {
            switch (item.trim()) {
                case DELETE -> delete = true;
                case COMPACT -> compact = true;
                default -> unknown = true;
            }
        }
        if (unknown || (!delete && !compact)) {
            throw new IllegalArgumentException("cleanup.policy must be delete, compact or compact,delete");
        }
        return compact && delete ? COMPACT + "," + DELETE : compact ? COMPACT : DELETE;
    }

    /** The cleanup.policy of the tenant's queue {@code queue} ({@code delete} for one no topic config names). */
    public String policy(UUID tenant, String queue) throws SQLException {
        String p = sql.one("SELECT cleanup_policy FROM queen.kafka_topics_v1(?, ARRAY[?]::text[])", rs -> rs.getString(1),
                tenant, queue);
        return p == null ? DELETE : p;
    }

    /** Sets a queue's cleanup.policy ({@link #policy(String)}-normalized); false for an unknown queue. */
    public boolean setPolicy(UUID tenant, String queue, String policy) throws SQLException {
        return sql.flag("SELECT queen.kafka_set_cleanup_policy_v1(?, ?, ?)", tenant, queue, policy(policy));
    }

    /**
     * {@code value} checked for {@code name} and normalized; a bad one throws IllegalArgumentException whose message
     * names the setting and what it takes.
     */
    public static String check(String name, String value) {
        return check(name, value, name);
    }

    /** {@link #check(String, String)}, the message naming the setting {@code label}. */
    public static String check(String name, String value, String label) {
        String v = value == null ? "" : value.trim();
        try {
            if (MIN_DIRTY_RATIO.equals(name)) {
                double d = Double.parseDouble(v);
                if (d >= 0 && d <= 1) {
                    return Double.toString(d);
                }
            } else {
                long l = Long.parseLong(v);
                if (l >= (MAX_LAG.equals(name) ? 1 : 0)) {
                    return Long.toString(l);
                }
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(label + " must be " + switch (name) {
            case MIN_DIRTY_RATIO -> "a number between 0 and 1";
            case MAX_LAG -> "a number of milliseconds of at least 1";
            default -> "a number of milliseconds of at least 0";
        } + ", not " + value);
    }

    /**
     * The queue's cleanup policy and effective settings under their HTTP names ({@code cleanupPolicy}, then {@link
     * #WIRE_NAMES} as numbers): the {@code compaction} object the configure route answers and the queue view shows.
     */
    public Map<String, Object> wireView(UUID tenant, String queue, UUID queueId) throws SQLException {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("cleanupPolicy", policy(tenant, queue));
        for (Setting s : describe(queueId)) {
            out.put(WIRE_NAMES.get(NAMES.indexOf(s.name())), new BigDecimal(s.value()));
        }
        return out;
    }

    /** The queue's settings, every one of them, in {@link #NAMES} order. */
    public List<Setting> describe(UUID queueId) throws SQLException {
        Map<String, String> own = sql.one("SELECT min_compaction_lag_ms::text, max_compaction_lag_ms::text,"
                + " delete_retention_ms::text, min_cleanable_dirty_ratio::text FROM queen.queue_compaction"
                + " WHERE queue_id = ?", rs -> {
                    Map<String, String> m = new LinkedHashMap<>();
                    for (int i = 0; i < NAMES.size(); i++) {
                        m.put(NAMES.get(i), rs.getString(i + 1));
                    }
                    return m;
                }, queueId);
        Map<String, String> fallback = Map.of(MIN_LAG, Long.toString(defaults.minCompactionLagMs()),
                MAX_LAG, Long.toString(defaults.maxCompactionLagMs()),
                DELETE_RETENTION, Long.toString(defaults.deleteRetentionMs()),
                MIN_DIRTY_RATIO, Double.toString(defaults.minCleanableDirtyRatio()));
        return NAMES.stream().map(n -> {
            String v = own == null ? null : own.get(n);
            return new Setting(n, v == null ? fallback.get(n) : (MIN_DIRTY_RATIO.equals(n)
                    ? Double.toString(Double.parseDouble(v)) : v), v == null);
        }).toList();
    }

    /** Sets the queue's {@code name} to {@code value} (checked), or back to the default when it is null. */
    public void set(UUID queueId, String name, String value) throws SQLException {
        String column = switch (name) {
            case MIN_LAG -> "min_compaction_lag_ms";
            case MAX_LAG -> "max_compaction_lag_ms";
            case DELETE_RETENTION -> "delete_retention_ms";
            case MIN_DIRTY_RATIO -> "min_cleanable_dirty_ratio";
            default -> throw new IllegalArgumentException("unknown compaction setting " + name);
        };
        String type = MIN_DIRTY_RATIO.equals(name) ? "float8" : "bigint";
        sql.execute("INSERT INTO queen.queue_compaction AS q (queue_id, " + column + ") VALUES (?, ?::" + type + ")"
                + " ON CONFLICT (queue_id) DO UPDATE SET " + column + " = EXCLUDED." + column, queueId,
                value == null ? SqlCalls.NULL_TEXT : check(name, value));
    }
}
