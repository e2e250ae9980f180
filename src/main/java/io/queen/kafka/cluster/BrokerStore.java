package io.queen.kafka.cluster;

import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * SQL calls of the Kafka node registration ({@code queen.kafka_broker_*_v1}): join, heartbeat, leave. A process
 * is told apart by its {@code instance} id, so a restarted broker at the same address is another registration.
 * Thread-safe (stateless).
 */
@ApplicationScoped
class BrokerStore {
    @Inject
    SqlCalls sql;

    /** A row of the heartbeat's answer: a live broker, and whether it is this process's own registration. */
    record Live(KafkaNode node, boolean mine) {
    }

    /** Registers {@code address} under the {@code wanted} node id (null: any free one); returns the id it got. */
    int join(Integer wanted, UUID instance, KafkaNode address, int sessionMs) throws SQLException {
        return (int) sql.number("SELECT queen.kafka_broker_join_v1(?, ?, ?, ?, ?, ?)", wanted, instance,
                address.host(), address.port(), address.rack() == null ? SqlCalls.NULL_TEXT : address.rack(),
                sessionMs);
    }

    /** Renews the registration of node {@code id} and lists the live brokers. */
    List<Live> heartbeat(int id, UUID instance, int sessionMs) throws SQLException {
        return sql.list("SELECT node_id, host, port, rack, mine FROM queen.kafka_broker_heartbeat_v1(?, ?, ?)",
                rs -> new Live(new KafkaNode(rs.getInt(1), rs.getString(2), rs.getInt(3), rs.getString(4)),
                        rs.getBoolean(5)), id, instance, sessionMs);
    }

    void leave(int id, UUID instance) throws SQLException {
        sql.flag("SELECT queen.kafka_broker_leave_v1(?, ?)", id, instance);
    }
}
