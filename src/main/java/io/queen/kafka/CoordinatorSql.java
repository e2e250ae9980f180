package io.queen.kafka;

import java.sql.SQLException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.jboss.logging.Logger;

/**
 * Database calls of the Kafka coordinators (groups, transactions) whose failure the client should retry: a failed
 * call is logged (its SQL state; the driver's text only at debug) and answered COORDINATOR_NOT_AVAILABLE, which
 * every Kafka client retries after looking the coordinator up again. Stateless, thread-safe.
 */
public final class CoordinatorSql {
    private static final Logger LOG = Logger.getLogger(CoordinatorSql.class);

    private CoordinatorSql() {
    }

    /** A call that may throw {@link SQLException}. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws SQLException;
    }

    /** The call's result; COORDINATOR_NOT_AVAILABLE (naming {@code store}) when the database fails it. */
    public static <T> T retriable(String store, Call<T> call) {
        try {
            return call.call();
        } catch (SQLException e) {
            LOG.warnf("kafka %s: database call failed (%s); answered COORDINATOR_NOT_AVAILABLE", store,
                    e.getSQLState());
            LOG.debug("database failure", e);
            throw new CoordinatorNotAvailableException("the " + store + " store is unavailable, retry");
        }
    }
}
