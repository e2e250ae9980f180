package io.queen;

import io.queen.schema.EmbeddedPostgresLauncher;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * Entry point of the packaged broker. Before Quarkus reads its configuration it decides which PostgreSQL to
 * use: the configured one ({@code PG_HOST}, {@code PG_HOSTS}, {@code QUEEN_JDBC_URL} or
 * {@code QUARKUS_DATASOURCE_JDBC_URL}), else a server listening on
 * 127.0.0.1:5432, else an embedded real PostgreSQL whose data survives restarts (see README).
 */
@QuarkusMain
public final class QueenMain {
    private QueenMain() {
    }

    public static void main(String... args) {
        EmbeddedPostgresLauncher.startIfNeeded();
        Quarkus.run(args);
    }
}
