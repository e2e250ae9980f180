package io.queen.push;

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * What holds pushes back from the log during push maintenance (the broker's durable spool,
 * {@code maintenance.PushSpool}). Owned here so that the write path asks it without depending on maintenance;
 * the spool drains back into the log through {@link LogWriter#replay}.
 */
public interface PushHold {
    /**
     * Whether a push must be held instead of written now: push maintenance is on, or pushes held during it are
     * still draining (a push must not overtake them).
     */
    boolean holdsPushes() throws SQLException, InterruptedException;

    /** Holds one request's items durably before returning; throws when they could not be kept. */
    void append(UUID tenant, List<PushItem> items) throws IOException;
}
