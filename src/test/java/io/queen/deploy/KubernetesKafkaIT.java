package io.queen.deploy;

import static io.queen.deploy.KubernetesManifestsIT.container;
import static io.queen.deploy.KubernetesManifestsIT.defaultOf;
import static io.queen.deploy.KubernetesManifestsIT.service;
import static io.queen.deploy.KubernetesManifestsIT.workload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.queen.testing.BrokerDatabase;
import io.queen.testing.BrokerProcess;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generated manifests serve Kafka: the StatefulSet's serviceName is a headless Service (so each pod has a DNS
 * name), each broker advertises its own pod's name (the downward API's pod name and namespace in the container's
 * environment, expanded as Kubernetes expands {@code $(VAR)}), the Kafka port is on the container and on the
 * Services. Then two broker processes run with the container's environment, as pods {@code queen-broker-0} and
 * {@code queen-broker-1} would get it, their advertised names resolving (through {@link PodDns}) to 127.0.0.2 and
 * 127.0.0.3; a real Kafka client bootstrapped at one of them finds both in Metadata, and produces to and consumes
 * from a partition led by each. What differs from pods: the brokers share this machine's ports, so each listens
 * on a free HTTP and Kafka port, and the database is the test's.
 */
class KubernetesKafkaIT {
    static final String NAMESPACE = "queen-test";
    /** The manifest's settings that point at the cluster's database; the test's database replaces them. */
    static final Set<String> CLUSTER_DATABASE = Set.of("PG_HOST", "PG_PORT", "PG_DATABASE", "DB_POOL_SIZE");

    @BeforeAll
    static void parse() throws Exception {
        KubernetesManifestsIT.parse();
    }

    /** The StatefulSet's serviceName: a headless Service of the manifests selecting the broker pods. */
    static JsonNode headlessService() {
        String name = workload().at("/spec/serviceName").asText();
        JsonNode s = KubernetesManifestsIT.byName.get("Service/" + name);
        assertNotNull(s, "the StatefulSet's serviceName " + name + " is a Service of the manifests");
        assertEquals("None", s.at("/spec/clusterIP").asText(),
                "the serviceName " + name + " is headless (clusterIP: None): only then do pods get DNS names");
        JsonNode podLabels = workload().at("/spec/template/metadata/labels");
        assertFalse(s.at("/spec/selector").isEmpty(), "it selects pods: " + s);
        s.at("/spec/selector").fields().forEachRemaining(e -> assertEquals(e.getValue(), podLabels.get(e.getKey()),
                "the headless Service selects the broker pods: " + e.getKey()));
        return s;
    }

    /**
     * The container's environment as the kubelet gives it to pod {@code pod}: literal values with {@code $(VAR)}
     * expanded from the variables defined before them, the downward API's pod name and namespace; variables from
     * Secrets are left out (the test's pods run without them: no authentication).
     */
    static Map<String, String> podEnvironment(String pod) {
        Map<String, String> env = new LinkedHashMap<>();
        Pattern ref = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
        for (JsonNode e : container().get("env")) {
            String name = e.get("name").asText();
            if (e.has("value")) {
                Matcher m = ref.matcher(e.get("value").asText());
                StringBuilder value = new StringBuilder();
                while (m.find()) {
                    // Kubernetes leaves a reference to a variable not defined before this one as it is
                    m.appendReplacement(value, Matcher.quoteReplacement(env.getOrDefault(m.group(1), m.group())));
                }
                m.appendTail(value);
                env.put(name, value.toString());
            } else if (e.has("valueFrom") && e.at("/valueFrom/fieldRef").isObject()) {
                String field = e.at("/valueFrom/fieldRef/fieldPath").asText();
                switch (field) {
                    case "metadata.name" -> env.put(name, pod);
                    case "metadata.namespace" -> env.put(name, NAMESPACE);
                    default -> throw new AssertionError("a downward API field the test does not know: " + e);
                }
            }
        }
        return env;
    }

    /** The Kafka port the container listens on (QUEEN_KAFKA_PORT, else the broker's default). */
    static int kafkaPort() throws Exception {
        Map<String, String> env = podEnvironment("queen-broker-0");
        return Integer.parseInt(env.getOrDefault("QUEEN_KAFKA_PORT", defaultOf("queen.kafka.port")));
    }

    @Test
    void eachPodAdvertisesItsOwnDnsName() throws Exception {
        String serviceName = headlessService().at("/metadata/name").asText();
        for (String pod : List.of("queen-broker-0", "queen-broker-1")) {
            Map<String, String> env = podEnvironment(pod);
            assertEquals("true", env.get("QUEEN_KAFKA_ENABLED"), "the Kafka listener is on: " + env);
            String advertised = env.get("QUEEN_KAFKA_ADVERTISED_HOST");
            assertNotNull(advertised, "each broker advertises a host of its own: " + env);
            String podName = pod + "." + serviceName + "." + NAMESPACE + ".svc";
            assertTrue(advertised.equals(podName) || advertised.equals(podName + ".cluster.local"),
                    pod + " advertises its DNS name " + podName + ", not " + advertised);
            String advertisedPort = env.get("QUEEN_KAFKA_ADVERTISED_PORT");
            assertTrue(advertisedPort == null || advertisedPort.equals(String.valueOf(kafkaPort())),
                    "the advertised port is the one it listens on: " + env);
        }
    }

    @Test
    void theKafkaPortIsOnTheContainerAndTheServices() throws Exception {
        int port = kafkaPort();
        boolean onContainer = false;
        for (JsonNode p : container().get("ports")) {
            onContainer |= p.get("containerPort").asInt() == port;
        }
        assertTrue(onContainer, "the container declares the Kafka port " + port + ": " + container().get("ports"));
        for (JsonNode s : List.of(service(), headlessService())) {
            boolean routed = false;
            for (JsonNode p : s.at("/spec/ports")) {
                routed |= p.path("targetPort").asInt(p.get("port").asInt()) == port;
            }
            assertTrue(routed, s.at("/metadata/name") + " routes a port to Kafka's " + port + ": " + s.at("/spec/ports"));
        }
    }

    @Test
    void aKafkaClientReachesBothBrokersByTheirAdvertisedNames() throws Exception {
        headlessService();
        List<String> hosts = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try (BrokerDatabase database = BrokerDatabase.create("k8skafka")) {
            for (int i = 0; i < 2; i++) {
                String pod = "queen-broker-" + i;
                Map<String, String> env = new HashMap<>(podEnvironment(pod));
                env.keySet().removeAll(CLUSTER_DATABASE);
                int port = BrokerProcess.freePort();
                env.put("QUEEN_KAFKA_PORT", String.valueOf(port));
                String host = env.get("QUEEN_KAFKA_ADVERTISED_HOST");
                PodDns.map(host, InetAddress.getByName("127.0.0." + (2 + i)));
                hosts.add(host);
                ports.add(port);
                BrokerProcess b = database.start(pod, env);
                b.awaitListening(port, Duration.ofSeconds(60));
            }
            Set<String> both = new TreeSet<>(List.of(hosts.get(0) + ":" + ports.get(0), hosts.get(1) + ":" + ports.get(1)));
            Properties props = new Properties();
            // in the cluster: the Service's address; here the first pod's
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, hosts.get(0) + ":" + ports.get(0));
            String topic = "k8s-orders";
            try (Admin admin = Admin.create(props)) {
                Set<String> listed = new TreeSet<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                // a broker is listed from its first registration heartbeat on
                while (true) {
                    listed.clear();
                    for (Node n : admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)) {
                        listed.add(n.host() + ":" + n.port());
                    }
                    if (listed.equals(both) || System.nanoTime() > deadline) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertEquals(both, listed, "Metadata lists both brokers under their pods' names");
                admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(topic);
                Set<String> leaders = new TreeSet<>();
                d.partitions().forEach(p -> leaders.add(p.leader().host() + ":" + p.leader().port()));
                assertEquals(both, leaders, "each broker leads one of the two partitions: " + d);
            }

            // a produce and a fetch per partition go to its leader: one through each broker
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                for (int p = 0; p < 2; p++) {
                    producer.send(new ProducerRecord<>(topic, p, "k", "record of partition " + p)).get(30, TimeUnit.SECONDS);
                }
            }
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, hosts.get(1) + ":" + ports.get(1));
            c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            Map<Integer, String> read = new HashMap<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
                List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (read.size() < 2 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(java.time.Duration.ofMillis(500))) {
                        read.put(r.partition(), r.value());
                    }
                }
            }
            assertEquals(Map.of(0, "record of partition 0", 1, "record of partition 1"), read);
            for (String host : hosts) {
                assertTrue(PodDns.lookedUp(host), "the client connected to " + host + " by its name");
            }
        }
    }
}
