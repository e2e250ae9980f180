package io.queen.bench;

import java.sql.Connection;

/**
 * A worker session of a baseline driver (plain SQL, pgmq) on a JDBC connection of its own, which {@link #close()}
 * closes. Used by one worker at a time, like every session.
 */
abstract class ConnectionSession implements AutoCloseable {
    protected final Connection c;

    ConnectionSession(Connection c) {
        this.c = c;
    }

    @Override
    public void close() {
        Jdbc.closeQuietly(c);
    }

    /** A producer session on its own connection. */
    abstract static class Producer extends ConnectionSession implements Driver.ProducerSession {
        Producer(Connection c) {
            super(c);
        }
    }

    /** A consumer session on its own connection. */
    abstract static class Consumer extends ConnectionSession implements Driver.ConsumerSession {
        Consumer(Connection c) {
            super(c);
        }
    }
}
