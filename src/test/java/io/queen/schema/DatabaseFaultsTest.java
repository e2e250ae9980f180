package io.queen.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which boot failures the broker waits out (the server cannot be reached or will not let it in) and which still
 * stop it (the SQL itself is wrong), and how the reason reads in the log.
 */
class DatabaseFaultsTest {
    @Test
    void reachingOrBeingLetInIsWaitedOut() {
        assertTrue(SchemaApplier.unreachable(new SQLException("refused", "08001")));
        assertTrue(SchemaApplier.unreachable(new SQLException("password authentication failed", "28P01")));
        assertTrue(SchemaApplier.unreachable(new SQLException("database \"x\" does not exist", "3D000")));
        assertTrue(SchemaApplier.unreachable(new SQLException("the database system is starting up", "57P03")));
        assertTrue(SchemaApplier.unreachable(new SQLException("too many connections", "53300")));
        assertTrue(SchemaApplier.unreachable(new SQLException("pool", null, new ConnectException("refused"))));
        assertTrue(SchemaApplier.unreachable(new SQLException("wrapped", null, new SQLException("io", "08006"))));
    }

    @Test
    void aBrokenSchemaFileStillFailsTheBoot() {
        assertFalse(SchemaApplier.unreachable(new SQLException("syntax error at or near", "42601")));
        assertFalse(SchemaApplier.unreachable(new SQLException("no state")));
    }

    @Test
    void theReasonNamesEachCauseOnce() {
        SQLException e = new SQLException("Connection to db:5432 refused.", "08001",
                new ConnectException("Connection refused"));
        assertEquals("Connection to db:5432 refused. (Connection refused)", SchemaApplier.reason(e));
        assertEquals("same", SchemaApplier.reason(new SQLException("same", "08001", new SQLException("same"))));
    }
}
