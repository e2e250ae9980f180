package io.queen.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One fresh database shared by the broker processes a multi-process test starts on it. {@link #close} checks the
 * storage invariants over everything they did, stops every broker started through {@link #start} and drops the
 * database. Not thread-safe; owned by one test class.
 */
public final class BrokerDatabase implements AutoCloseable {
    private final TestPostgres.Server pg = TestPostgres.server();
    private final String db;
    private final List<BrokerProcess> started = new ArrayList<>();

    private BrokerDatabase(String owner) {
        this.db = TestPostgres.createDatabase(owner);
    }

    public static BrokerDatabase create(String owner) {
        return new BrokerDatabase(owner);
    }

    public TestPostgres.Server pg() {
        return pg;
    }

    public String db() {
        return db;
    }

    /** A new JDBC connection to this database (the caller closes it). */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(pg.jdbcUrl(db), pg.user(), pg.password());
    }

    /** Starts a broker on this database and waits until it is healthy (see {@link BrokerProcess#start}). */
    public BrokerProcess start(String name, Map<String, String> env) throws Exception {
        BrokerProcess b = BrokerProcess.start(name, pg, db, env);
        started.add(b);
        return b;
    }

    @Override
    public void close() throws Exception {
        try {
            StorageInvariants.assertHold(pg.jdbcUrl(db), pg.user(), pg.password());
        } finally {
            for (BrokerProcess b : started) {
                b.close();
            }
            TestPostgres.dropDatabase(db);
        }
    }
}
