package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kafka listener follows the HTTP listener's address: a broker on HOST=127.0.0.1 (what {@code ./queen run} sets
 * while authentication is off) keeps its Kafka port on loopback too, unreachable on the machine's other addresses,
 * and advertises the loopback address its clients can reach. A broker listening on every interface with
 * authentication off says so at startup, one line per listener naming its address.
 */
class ListenerExposureIT {
    static BrokerDatabase database;

    @BeforeAll
    static void create() {
        database = BrokerDatabase.create("exposure");
    }

    @AfterAll
    static void drop() throws Exception {
        database.close();
    }

    @Test
    void onLoopbackHttpTheKafkaListenerStaysOnLoopbackAndWarnsNothing() throws Exception {
        int kafkaPort = BrokerProcess.freePort();
        BrokerProcess broker = database.start("exposure-loopback", Map.of("HOST", "127.0.0.1",
                "QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort)));
        broker.awaitListening(kafkaPort, Duration.ofSeconds(60));
        String log = broker.logText();
        assertTrue(log.contains("Kafka listener on 127.0.0.1:" + kafkaPort + ", advertised as 127.0.0.1:" + kafkaPort),
                log);
        Optional<InetAddress> outside = nonLoopbackAddress();
        if (outside.isPresent()) {
            // the machine's own non-loopback address: nothing listens there, for Kafka as for HTTP
            assertThrows(IOException.class, () -> connect(outside.get(), kafkaPort), "Kafka on " + outside.get());
            assertThrows(IOException.class, () -> connect(outside.get(), broker.port()), "HTTP on " + outside.get());
        }
        try (Admin admin = KafkaListenerClients.admin("127.0.0.1:" + kafkaPort)) {
            List<String> hosts = admin.describeCluster().nodes().get(60, TimeUnit.SECONDS).stream().map(Node::host)
                    .distinct().toList();
            assertTrue(hosts.contains("127.0.0.1"), "advertised: " + hosts);
        }
        assertFalse(broker.logText().contains("authentication is off"), broker.logText());
    }

    @Test
    void onEveryInterfaceWithoutAuthenticationEachListenerWarnsNamingItsAddress() throws Exception {
        int kafkaPort = BrokerProcess.freePort();
        BrokerProcess broker = database.start("exposure-open", Map.of("HOST", "0.0.0.0",
                "QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1"));
        broker.awaitListening(kafkaPort, Duration.ofSeconds(60));
        String http = "authentication is off and the HTTP listener (API and console) on 0.0.0.0:" + broker.port()
                + " accepts connections from other machines";
        String kafka = "authentication is off and the Kafka listener on 0.0.0.0:" + kafkaPort
                + " accepts connections from other machines";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String log = broker.logText();
        while (!(log.contains(http) && log.contains(kafka)) && System.nanoTime() < deadline) {
            Thread.sleep(100);   // the HTTP line is logged by an asynchronous observer of the server's start
            log = broker.logText();
        }
        assertTrue(log.contains(http), log);
        assertTrue(log.contains(kafka), log);
        assertEquals(1, log.lines().filter(l -> l.contains("the Kafka listener on 0.0.0.0")).count(), log);
    }

    private static void connect(InetAddress address, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
        }
    }

    /** An IPv4 address of this machine that is not loopback, on an interface that is up, if there is one. */
    static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return Optional.of(a);
                }
            }
        }
        return Optional.empty();
    }
}
