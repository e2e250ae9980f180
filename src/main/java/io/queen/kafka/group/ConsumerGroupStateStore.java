package io.queen.kafka.group;

import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.List;

/**
 * The {@link ConsumerGroupLog} in PostgreSQL (db/028_kafka_consumer_groups.sql, {@code queen.kafka_consumer_groups}).
 * Thread-safe (stateless).
 */
@ApplicationScoped
class ConsumerGroupStateStore implements ConsumerGroupLog {
    @Inject
    SqlCalls sql;

    @Override
    public Saved load(ClassicGroups.Key key) {
        try {
            List<Saved> rows = sql.list("SELECT version, state FROM queen.kafka_consumer_group_load_v1(?, ?)",
                    rs -> new Saved(rs.getLong(1), rs.getString(2)), key.tenant(), key.groupId());
            return rows.isEmpty() ? null : rows.get(0);
        } catch (SQLException e) {
            throw new GroupLog.Unavailable("consumer group state not loaded: " + e.getSQLState(), e);
        }
    }

    @Override
    public long save(ClassicGroups.Key key, long expectedVersion, int groupEpoch, String state) {
        try {
            List<Long> v = sql.list("SELECT queen.kafka_consumer_group_save_v1(?, ?, ?, ?, ?)",
                    rs -> SqlCalls.longOrNull(rs, 1), key.tenant(), key.groupId(), expectedVersion, groupEpoch,
                    state);
            return v.isEmpty() || v.get(0) == null ? -1 : v.get(0);
        } catch (SQLException e) {
            throw new GroupLog.Unavailable("consumer group state not saved: " + e.getSQLState(), e);
        }
    }

    @Override
    public void delete(ClassicGroups.Key key) {
        try {
            sql.flag("SELECT queen.kafka_consumer_group_delete_v1(?, ?)", key.tenant(), key.groupId());
        } catch (SQLException e) {
            throw new GroupLog.Unavailable("consumer group state not deleted: " + e.getSQLState(), e);
        }
    }
}
