package io.queen.quarkus.deployment;

import java.time.Duration;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import io.quarkus.deployment.builditem.Startable;

/**
 * A Queen broker from its container image, with the broker's embedded PostgreSQL inside the container (nothing
 * else to start), port 6632 mapped to a free host port. Not thread-safe (started and closed by Quarkus).
 */
final class BrokerContainer extends GenericContainer<BrokerContainer> implements Startable {

    static final int PORT = 6632;

    BrokerContainer(String image, Duration startTimeout) {
        super(DockerImageName.parse(image));
        withEnv("QUEEN_EMBEDDED_PG", "true");
        withEnv("QUEEN_EMBEDDED_PG_DIR", "/tmp/queen-pgdata");
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
    }
}
