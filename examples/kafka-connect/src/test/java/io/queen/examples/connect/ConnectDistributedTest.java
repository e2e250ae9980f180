package io.queen.examples.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.BrokerProcess;
import io.queen.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Connect 4.3 in distributed mode against a real Queen broker (the repository's packaged jar, its Kafka listener
 * on, a database of its own). The worker creates its three compacted topics (configs, offsets, statuses), joins its
 * group (protocol type {@code connect}) and runs a FileStreamSource (a file into topic {@code lines}) and a
 * FileStreamSink (topic {@code lines} into another file). The worker is stopped and a new one started on the same
 * topics: it must find both connectors' configs, resume the source where its stored offset says (lines written while
 * no worker ran arrive, none is read twice) and the sink where its group's offsets say, so the output file holds
 * every input line exactly once, in order.
 */
class ConnectDistributedTest {
    static final int FIRST = 200;
    static final int SECOND = 100;

    static TestPostgres.Server pg;
    static BrokerProcess broker;
    static String bootstrap;
    static String database;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() throws Exception {
        pg = TestPostgres.server();
        database = TestPostgres.createDatabase("kafka_connect");
        int kafkaPort = BrokerProcess.freePort();
        broker = BrokerProcess.start("kafka-connect", pg, database, Map.of(
                "QUEEN_KAFKA_ENABLED", "true",
                "QUEEN_KAFKA_PORT", String.valueOf(kafkaPort),
                "QUEEN_KAFKA_ADVERTISED_HOST", "127.0.0.1",
                // a new worker joins at once instead of waiting for the group's first rebalance delay
                "QUEEN_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0",
                "DB_POOL_SIZE", "5"));
        broker.awaitListening(kafkaPort, Duration.ofSeconds(30));
        bootstrap = "127.0.0.1:" + kafkaPort;
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        if (database != null) {
            TestPostgres.dropDatabase(database);   // the shared server keeps no database of a finished run
        }
    }

    Map<String, String> workerProps(int restPort) {
        Map<String, String> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", "queen-connect");
        p.put("config.storage.topic", "connect-configs");
        p.put("offset.storage.topic", "connect-offsets");
        p.put("status.storage.topic", "connect-status");
        p.put("config.storage.replication.factor", "1");
        p.put("offset.storage.replication.factor", "1");
        p.put("status.storage.replication.factor", "1");
        p.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("offset.flush.interval.ms", "500");
        p.put("listeners", "http://127.0.0.1:" + restPort);
        p.put("plugin.discovery", "only_scan");
        return p;
    }

    static int freePort() throws IOException {
        return BrokerProcess.freePort();
    }

    static String rest(String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
        b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.method(method, HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() < 300, method + " " + url + " -> " + r.statusCode() + " " + r.body());
        return r.body();
    }

    static void await(String what, Duration limit, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(200);
        }
    }

    static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static void append(Path file, int from, int count) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < from + count; i++) {
            sb.append("line-").append(i).append('\n');
        }
        Files.writeString(file, sb, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    static List<String> expected(int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add("line-" + i);
        }
        return out;
    }

    @Test
    void aRestartedWorkerKeepsItsConnectorsAndResumesWhereItsOffsetsSay() throws Exception {
        Path in = dir.resolve("in.txt");
        Path out = dir.resolve("out.txt");
        append(in, 0, FIRST);

        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Connect<?> worker = new ConnectDistributed().startConnect(workerProps(port));
        try {
            rest("PUT", url + "/connectors/file-source/config", "{\"connector.class\":\"FileStreamSource\","
                    + "\"tasks.max\":\"1\",\"file\":\"" + in + "\",\"topic\":\"lines\"}");
            rest("PUT", url + "/connectors/file-sink/config", "{\"connector.class\":\"FileStreamSink\","
                    + "\"tasks.max\":\"1\",\"file\":\"" + out + "\",\"topics\":\"lines\"}");
            await("the first " + FIRST + " lines copied", Duration.ofSeconds(90), () -> lines(out).size() >= FIRST);
            assertEquals(expected(FIRST), lines(out));
        } finally {
            worker.stop();
            worker.awaitStop();
        }

        // the worker's topics are compacted, as Connect requires (it checks the config topic's policy at start)
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            for (String topic : List.of("connect-configs", "connect-offsets", "connect-status")) {
                ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                Config c = admin.describeConfigs(List.of(r)).all().get().get(r);
                assertEquals("compact", c.get("cleanup.policy").value(), topic);
            }
        }

        append(in, FIRST, SECOND);
        int port2 = freePort();
        String url2 = "http://127.0.0.1:" + port2;
        Connect<?> again = new ConnectDistributed().startConnect(workerProps(port2));
        try {
            await("the connectors back from the config topic", Duration.ofSeconds(90), () -> {
                try {
                    String list = rest("GET", url2 + "/connectors", null);
                    return list.contains("file-source") && list.contains("file-sink");
                } catch (Exception e) {
                    return false;
                }
            });
            await("all " + (FIRST + SECOND) + " lines copied", Duration.ofSeconds(90),
                    () -> lines(out).size() >= FIRST + SECOND);
            // a second look after the source's next polls: nothing read twice
            Thread.sleep(2_000);
            assertEquals(expected(FIRST + SECOND), lines(out), "every line once, in order");
            String status = rest("GET", url2 + "/connectors/file-source/status", null);
            assertTrue(status.contains("\"RUNNING\""), status);
        } finally {
            again.stop();
            again.awaitStop();
        }
    }
}
