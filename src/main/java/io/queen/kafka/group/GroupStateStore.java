package io.queen.kafka.group;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.api.Json;
import io.queen.sql.SqlCalls;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The {@link GroupLog} in PostgreSQL (db/024_kafka_cluster.sql, {@code queen.kafka_groups}): one row per group with
 * its members as a JSON array, subscription metadata and assignments base64-encoded. Thread-safe (stateless).
 */
@ApplicationScoped
class GroupStateStore implements GroupLog {
    @Inject
    SqlCalls sql;

    @Override
    public Saved load(ClassicGroups.Key key) {
        try {
            List<Saved> rows = sql.list("SELECT version, generation, state, protocol_type, protocol_name, leader_id,"
                    + " members FROM queen.kafka_group_load_v1(?, ?)", rs -> new Saved(rs.getLong(1), rs.getInt(2),
                    rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6), members(rs.getString(7))),
                    key.tenant(), key.groupId());
            return rows.isEmpty() ? null : rows.get(0);
        } catch (SQLException e) {
            throw new Unavailable("group state not loaded: " + e.getSQLState(), e);
        }
    }

    @Override
    public long save(ClassicGroups.Key key, long expectedVersion, Saved s) {
        try {
            List<Long> v = sql.list("SELECT queen.kafka_group_save_v1(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rs -> SqlCalls.longOrNull(rs, 1), key.tenant(), key.groupId(), expectedVersion, s.generation(),
                    s.state(), text(s.protocolType()), text(s.protocolName()), text(s.leaderId()),
                    json(s.members()));
            return v.isEmpty() || v.get(0) == null ? -1 : v.get(0);
        } catch (SQLException e) {
            throw new Unavailable("group state not saved: " + e.getSQLState(), e);
        }
    }

    @Override
    public void delete(ClassicGroups.Key key) {
        try {
            sql.flag("SELECT queen.kafka_group_delete_v1(?, ?)", key.tenant(), key.groupId());
        } catch (SQLException e) {
            throw new Unavailable("group state not deleted: " + e.getSQLState(), e);
        }
    }

    private static Object text(String s) {
        return s == null ? SqlCalls.NULL_TEXT : s;
    }

    static String json(List<SavedMember> members) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        Base64.Encoder b64 = Base64.getEncoder();
        for (SavedMember m : members) {
            ObjectNode o = out.addObject().put("memberId", m.memberId()).put("instanceId", m.instanceId())
                    .put("clientId", m.clientId()).put("clientHost", m.clientHost())
                    .put("sessionTimeoutMs", m.sessionTimeoutMs()).put("rebalanceTimeoutMs", m.rebalanceTimeoutMs())
                    .put("protocolType", m.protocolType())
                    .put("assignment", b64.encodeToString(m.assignment()));
            ArrayNode ps = o.putArray("protocols");
            for (ClassicGroups.Protocol p : m.protocols()) {
                ps.addObject().put("name", p.name()).put("metadata", b64.encodeToString(p.metadata()));
            }
        }
        return out.toString();
    }

    static List<SavedMember> members(String json) throws SQLException {
        JsonNode arr;
        try {
            arr = Json.MAPPER.readTree(json);
        } catch (IOException e) {
            throw new SQLException("unreadable group members", "22P02", e);
        }
        Base64.Decoder b64 = Base64.getDecoder();
        List<SavedMember> out = new ArrayList<>();
        for (JsonNode o : arr) {
            List<ClassicGroups.Protocol> ps = new ArrayList<>();
            for (JsonNode p : o.path("protocols")) {
                ps.add(new ClassicGroups.Protocol(p.path("name").asText(), b64.decode(p.path("metadata").asText())));
            }
            out.add(new SavedMember(o.path("memberId").asText(), textOrNull(o, "instanceId"),
                    textOrNull(o, "clientId"), textOrNull(o, "clientHost"), o.path("sessionTimeoutMs").asInt(),
                    o.path("rebalanceTimeoutMs").asInt(), textOrNull(o, "protocolType"), ps,
                    b64.decode(o.path("assignment").asText(""))));
        }
        return out;
    }

    private static String textOrNull(JsonNode o, String field) {
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
