package io.queen.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ws.rs.core.Response;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Which failures are a 503 with Retry-After, and that no answer carries the cause's text. */
class FailuresTest {
    @Test
    void transientStatesAnywhereInTheChainAreRetryable() {
        for (String state : new String[] {"08006", "08001", "57P01", "57P02", "57P03", "57014", "53300", "40001",
                "40P01"}) {
            assertTrue(Failures.isTransient(new SQLException("x", state)), state);
            assertTrue(Failures.isTransient(new CompletionException(new RuntimeException(new SQLException("x", state)))),
                    state + " wrapped");
        }
        assertTrue(Failures.isTransient(new SQLException("Acquisition timeout while waiting for new connection")));
        assertTrue(Failures.isTransient(new RuntimeException(new ConnectException("refused"))));
        for (String state : new String[] {"22P05", "42883", "23505", "P0001", null}) {
            assertFalse(Failures.isTransient(new SQLException("x", state)), String.valueOf(state));
        }
        assertFalse(Failures.isTransient(new IllegalArgumentException("x")));
    }

    @Test
    void answersCarryNoDriverText() {
        Response unavailable = ErrorMappers.failure(new SQLException("FATAL: terminating connection", "57P01"));
        assertEquals(503, unavailable.getStatus());
        assertEquals("1", unavailable.getHeaderString("Retry-After"));
        String body = new String((byte[]) unavailable.getEntity(), StandardCharsets.UTF_8);
        assertFalse(body.contains("FATAL"), body);

        Response internal = ErrorMappers.failure(new SQLException("ERROR: invalid byte sequence for encoding", "22021"));
        assertEquals(500, internal.getStatus());
        String text = new String((byte[]) internal.getEntity(), StandardCharsets.UTF_8);
        assertFalse(text.contains("invalid byte"), text);
        assertTrue(text.matches("\\{\"error\":\"Internal error\",\"requestId\":\"[0-9a-f]{16,24}\"}"), text);
    }

    @Test
    void readOnlyDiskFullAndOutOfMemoryAre503NamingTheReason() {
        String[][] cases = {{"25006", Failures.READ_ONLY}, {"53100", Failures.DISK_FULL},
                {"53200", Failures.OUT_OF_MEMORY}, {"08006", Failures.UNAVAILABLE}};
        for (String[] c : cases) {
            Response r = ErrorMappers.failure(new RuntimeException(new SQLException("ERROR: driver text", c[0])));
            assertEquals(503, r.getStatus(), c[0]);
            assertEquals("1", r.getHeaderString("Retry-After"));
            String body = new String((byte[]) r.getEntity(), StandardCharsets.UTF_8);
            assertEquals("{\"error\":\"" + c[1] + "\"}", body, c[0]);
        }
    }
}
