package io.queen.quarkus.deployment;

import java.time.Duration;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import io.quarkus.deployment.builditem.Startable;

/**
 * A Queen broker from its container image next to a PostgreSQL container on a network of their own (the broker's
 * image carries no embedded PostgreSQL: it is built for deployments that have a database), port 6632 mapped to a free
 * host port. Not thread-safe (started and closed by Quarkus).
 */
final class BrokerContainer extends GenericContainer<BrokerContainer> implements Startable {

    static final int PORT = 6632;
    /** The database of a Dev Services broker: throwaway, so any recent PostgreSQL image serves. */
    static final String POSTGRES_IMAGE = "postgres:17-alpine";
    private static final String PG_ALIAS = "queen-pg";

    private final Network network;
    private final GenericContainer<?> postgres;

    BrokerContainer(String image, Duration startTimeout) {
        super(DockerImageName.parse(image));
        this.network = Network.newNetwork();
        this.postgres = new GenericContainer<>(DockerImageName.parse(POSTGRES_IMAGE)).withNetwork(network)
                .withNetworkAliases(PG_ALIAS).withEnv("POSTGRES_PASSWORD", "postgres")
                // the official image logs it twice: after the init run and after the real start
                .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\s", 2)
                        .withStartupTimeout(startTimeout));
        withNetwork(network);
        dependsOn(postgres);
        withEnv("QUEEN_EMBEDDED_PG", "false");
        withEnv("PG_HOST", PG_ALIAS);
        withEnv("PG_PORT", "5432");
        withEnv("PG_USER", "postgres");
        withEnv("PG_PASSWORD", "postgres");
        withEnv("QUEEN_SPOOL_DIR", "/tmp/queen-spool");
        withExposedPorts(PORT);
        waitingFor(Wait.forHttp("/health").forStatusCode(200).withStartupTimeout(startTimeout));
    }

    @Override
    public String getConnectionInfo() {
        return "http://" + getHost() + ":" + getMappedPort(PORT);
    }

    // Quarkus's Startable is a Closeable: the inherited close() must be declared here to implement it.
    @Override
    public void close() {
        super.close();
        postgres.stop();
        network.close();
    }
}
