package io.queen.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.kafka.ReadToEnd;
import io.queen.testing.Await;
import io.queen.testing.BrokerProcess;
import io.queen.testing.Http;
import io.queen.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A broker started while its database cannot be reached stays up, says which server it tried and why (no stack
 * traces), answers 503 on readiness and API routes, and serves as soon as the database answers. The database
 * "appears" when a TCP forwarder to the real server starts listening on the port the broker was given, or when
 * the database the broker was given is created. The same holds with the Kafka listener on: it opens once the
 * database answers.
 */
class DatabaseStartupIT {
    static TestPostgres.Server pg;
    static String db;

    @BeforeAll
    static void start() {
        pg = TestPostgres.server();
        db = TestPostgres.createDatabase("dbstartup");
    }

    @AfterAll
    static void stop() {
        TestPostgres.dropDatabase(db);
    }

    @Test
    void unreachableAtBootWaitsUnreadyThenServesWhenTheDatabaseAppears() throws Exception {
        int port = BrokerProcess.freePort();
        try (BrokerProcess broker = BrokerProcess.launch("dbstart", pg, db,
                Map.of("PG_HOST", "127.0.0.1", "PG_PORT", String.valueOf(port)))) {
            awaitAnswer(broker);
            Await.until("a few retries in the log", () -> notReachable(broker) >= 2, Duration.ofSeconds(60));
            Http.Reply ready = Http.get(broker.url(), "/q/health/ready");
            assertEquals(503, ready.status(), ready.body());
            assertTrue(ready.body().contains("127.0.0.1:" + port), ready.body());
            Http.Reply push = Http.post(broker.url(), "/api/v1/push",
                    "{\"items\":[{\"queue\":\"dbs\",\"transactionId\":\"t1\",\"payload\":{\"n\":1}}]}");
            assertEquals(503, push.status(), push.body());
            assertTrue(push.body().contains("database not ready"), push.body());
            // the schema gate answers ahead of the request checks: a body that is not JSON gets the same 503
            Http.Reply xml = Http.send(HttpRequest.newBuilder(URI.create(broker.url() + "/api/v1/push"))
                    .header("Content-Type", "text/xml").POST(HttpRequest.BodyPublishers.ofString("<a/>")).build());
            assertEquals(503, xml.status(), xml.body());
            assertTrue(xml.body().contains("database not ready"), xml.body());
            assertEquals(503, Http.get(broker.url(), "/health").status());
            assertEquals(200, Http.get(broker.url(), "/q/health/live").status(), "alive while waiting");

            String log = broker.logText();
            assertTrue(log.contains("PostgreSQL 127.0.0.1:" + port + "/" + db + " as " + pg.user() + " not reachable"),
                    log);
            assertTrue(log.contains("refused"), log);
            assertTrue(!log.contains("\tat "), "no stack traces while waiting:\n" + log);
            long attempts = log.lines().filter(l -> l.contains("not reachable")).count();
            assertTrue(attempts >= 2 && attempts <= 6, "retries back off: " + attempts + " attempts in ~5 s\n" + log);

            try (Forwarder f = new Forwarder(port, pg.host(), pg.port())) {
                broker.awaitHealthy(Duration.ofSeconds(60));
                assertEquals(200, Http.get(broker.url(), "/q/health/ready").status());
                Http.Reply again = Http.post(broker.url(), "/api/v1/push",
                        "{\"items\":[{\"queue\":\"dbs\",\"transactionId\":\"t1\",\"payload\":{\"n\":1}}]}");
                assertEquals(201, again.status(), again.body());
                Http.Reply popped = Http.get(broker.url(), "/api/v1/pop/queue/dbs?autoAck=true");
                assertEquals(200, popped.status(), popped.body());
                assertTrue(broker.logText().contains("reached at attempt"), broker.logText());
            }
        }
    }

    @Test
    void wrongPasswordIsNamedWithTheUserAndRetried() throws Exception {
        try (BrokerProcess broker = BrokerProcess.launch("dbpass", pg, db, Map.of("PG_PASSWORD", "not-the-password"))) {
            awaitAnswer(broker);
            Await.until("the refused login in the log", () -> notReachable(broker) >= 1, Duration.ofSeconds(60));
            assertEquals(503, Http.get(broker.url(), "/q/health/ready").status());
            String log = broker.logText();
            assertTrue(log.contains(" as " + pg.user() + " not reachable"), log);
            assertTrue(log.contains("password authentication failed"), log);
            assertTrue(!log.contains("not-the-password"), "the password is never logged");
            assertTrue(!log.contains("\tat "), "no stack traces:\n" + log);
        }
    }

    @Test
    void withTheKafkaListenerOnAMissingDatabaseIsWaitedForThenHttpAndKafkaServe() throws Exception {
        String missing = "qt_dbstart_kafka_" + ProcessHandle.current().pid() + "_" + (System.nanoTime() % 100_000);
        int kafkaPort = BrokerProcess.freePort();
        try (BrokerProcess broker = BrokerProcess.launch("dbstart-kafka", pg, missing, Map.of(
                "QUEEN_KAFKA_ENABLED", "true", "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1"))) {
            awaitAnswer(broker);
            // a second attempt in the log: the broker outlived its first failure and keeps retrying
            Await.until("a retry in the log", () -> {
                assertTrue(broker.alive(), "the broker exited:\n" + broker.logText());
                return notReachable(broker) >= 2;
            }, Duration.ofSeconds(60));
            assertTrue(broker.alive(), "the broker exited:\n" + broker.logText());
            Http.Reply ready = Http.get(broker.url(), "/q/health/ready");
            assertEquals(503, ready.status(), ready.body());
            assertTrue(ready.body().contains("does not exist"), ready.body());
            assertTrue(broker.logText().contains("does not exist"), broker.logText());

            try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres"), pg.user(), pg.password());
                    Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + missing);
            }
            try {
                awaitReady(broker);
                String bootstrap = "127.0.0.1:" + kafkaPort;
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(),
                        new StringSerializer())) {
                    for (int i = 0; i < 3; i++) {
                        producer.send(new ProducerRecord<>("dbstart", "v" + i)).get(60, TimeUnit.SECONDS);
                    }
                }
                assertEquals(List.of("v0", "v1", "v2"), ReadToEnd.values(bootstrap, "read_uncommitted",
                        ReadToEnd.partitions(1, "dbstart")));
                Http.Reply push = Http.post(broker.url(), "/api/v1/push",
                        "{\"items\":[{\"queue\":\"dbs\",\"transactionId\":\"t1\",\"payload\":{\"n\":1}}]}");
                assertEquals(201, push.status(), push.body());
            } finally {
                broker.close();
                TestPostgres.dropDatabase(missing);
            }
        }
    }

    /** Lines of the broker's log saying the database was not reachable: one per attempt. */
    private static long notReachable(BrokerProcess broker) throws IOException {
        return broker.logText().lines().filter(l -> l.contains("not reachable")).count();
    }

    /** Waits until readiness answers 200 (the schema applied, the Kafka node registered). */
    private static void awaitReady(BrokerProcess broker) throws Exception {
        Await.until("ready", () -> {
            assertTrue(broker.alive(), "the broker exited:\n" + broker.logText());
            return Http.get(broker.url(), "/q/health/ready").status() == 200;
        }, Duration.ofSeconds(60));
    }

    /** Waits until the broker's HTTP port answers at all (it listens while the database is away). */
    static void awaitAnswer(BrokerProcess broker) throws Exception {
        boolean listened = Await.within(() -> {
            try {
                Http.get(broker.url(), "/q/health/live");
                return true;
            } catch (IllegalStateException notYet) {
                assertTrue(broker.alive(), "the broker exited:\n" + broker.logText());
                return false;
            }
        }, Duration.ofSeconds(60));
        assertTrue(listened, "broker never listened:\n" + broker.logText());
    }

    /** A TCP forwarder: every connection to {@code 127.0.0.1:port} is piped to the target. Closes all on close. */
    static final class Forwarder implements AutoCloseable {
        private final ServerSocket server;

        Forwarder(int port, String host, int targetPort) throws IOException {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress("127.0.0.1", port));
            Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket in = server.accept();
                        Socket out = new Socket(host, targetPort);
                        pipe(in, out);
                        pipe(out, in);
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        private static void pipe(Socket from, Socket to) {
            Thread.ofPlatform().daemon().start(() -> {
                try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
                    i.transferTo(o);
                } catch (IOException ignored) {
                    // either side closed
                } finally {
                    try {
                        to.close();
                        from.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            });
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
