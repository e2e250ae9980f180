package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.queen.auth.Tokens;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.FreshDatabase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.security.auth.callback.Callback;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * With authentication on, Kafka clients authenticate with the broker's JWTs over SASL (PLAIN with the token as
 * password, OAUTHBEARER) and get the token's tenant and role: nothing is served before authentication, a bad token
 * is refused, a read-only token cannot produce, a tenant sees only its own topics.
 */
@QuarkusTest
@TestProfile(KafkaSaslTest.KafkaWithJwt.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaSaslTest {
    public static class KafkaWithJwt implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> m = new HashMap<>(new KafkaEnabled().getConfigOverrides());
            m.put("queen.auth.enabled", "true");
            m.put("queen.auth.secret", Tokens.SECRET);
            return m;
        }
    }

    /** Hands the Java client's OAUTHBEARER login the token of {@link #token}. */
    public static class FixedToken implements AuthenticateCallbackHandler {
        static volatile String token;

        @Override
        public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        }

        @Override
        public void handle(Callback[] callbacks) {
            for (Callback c : callbacks) {
                if (c instanceof OAuthBearerTokenCallback cb) {
                    String t = token;
                    cb.token(new OAuthBearerToken() {
                        public String value() {
                            return t;
                        }

                        public Set<String> scope() {
                            return Set.of();
                        }

                        public long lifetimeMs() {
                            return System.currentTimeMillis() + 3_600_000;
                        }

                        public String principalName() {
                            return "test";
                        }

                        public Long startTimeMs() {
                            return null;
                        }
                    });
                }
            }
        }

        @Override
        public void close() {
        }
    }

    @Inject
    KafkaListener listener;

    Properties plain(String token) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        if (token != null) {
            p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
            p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
            p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"any\" password=\"" + token + "\";");
        }
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        p.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return p;
    }

    KafkaProducer<byte[], byte[]> producer(Properties p) {
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A producer signed in with {@code token} under the transactional id {@code transactionalId}. */
    KafkaProducer<byte[], byte[]> transactionalProducer(String token, String transactionalId) {
        Properties p = plain(token);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return producer(p);
    }

    @Test
    void plainWithTheJwtAsPasswordProducesAndConsumesInTheTokensTenant() throws Exception {
        String a = Tokens.token("alice", "admin", "tenant-a");
        String b = Tokens.token("bob", "admin", "tenant-b");
        try (KafkaProducer<byte[], byte[]> p = producer(plain(a))) {
            assertEquals(0, p.send(new ProducerRecord<>("sasl-a", 0, null, new byte[] {1})).get().offset());
        }
        try (Admin admin = Admin.create(plain(b))) {
            assertFalse(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("sasl-a"),
                    "another tenant's topic is not listed");
        }
        try (Admin admin = Admin.create(plain(a))) {
            assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("sasl-a"));
        }
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(plain(a), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition("sasl-a", 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            ConsumerRecords<byte[], byte[]> got = ConsumerRecords.empty();
            for (int i = 0; i < 20 && got.isEmpty(); i++) {
                got = c.poll(Duration.ofMillis(500));
            }
            assertEquals(1, got.count());
        }
    }

    @Test
    void oauthBearerCarriesTheJwt() throws Exception {
        FixedToken.token = Tokens.token("carol", "read-write", "tenant-c");
        Properties p = plain(null);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        p.put(SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
        p.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, FixedToken.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = producer(p)) {
            assertEquals(0, producer.send(new ProducerRecord<>("sasl-c", 0, null, new byte[] {2})).get().offset());
        }
    }

    @Test
    void aBadTokenOrNoneIsRefusedAndReadOnlyCannotProduce() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = producer(plain("not-a-jwt"))) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> p.send(new ProducerRecord<>("sasl-x", 0, null, new byte[] {1})).get());
            assertTrue(e.getCause() instanceof SaslAuthenticationException, e.toString());
        }
        try (Admin admin = Admin.create(plain(null))) {
            // no SASL at all: every request but ApiVersions is answered with an authentication error
            assertThrows(ExecutionException.class, () -> admin.listTopics().names().get(30, TimeUnit.SECONDS));
        }
        String admin = Tokens.token("root", "admin", "tenant-r");
        try (Admin a = Admin.create(plain(admin))) {
            a.createTopics(List.of(new NewTopic("sasl-ro", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> p = producer(plain(Tokens.token("reader", "read-only", "tenant-r")))) {
            // the idempotent producer's InitProducerId is refused: when that answer is in before send(), the
            // client throws at once (its error state); otherwise the send's future fails. Either way, refused.
            Exception e = assertThrows(Exception.class,
                    () -> p.send(new ProducerRecord<>("sasl-ro", 0, null, new byte[] {1})).get());
            assertTrue(authorizationFailure(e), e.toString());
        }
    }

    @Test
    void theAdminCallsNeedTheRolesApacheKafkasAclsWouldAsk() throws Exception {
        try (Admin a = Admin.create(plain(Tokens.token("root", "admin", "tenant-l")))) {
            a.createTopics(List.of(new NewTopic("sasl-admin", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            int node = a.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            assertTrue(a.describeLogDirs(List.of(node)).allDescriptions().get(30, TimeUnit.SECONDS).containsKey(node));
        }
        TopicPartition tp = new TopicPartition("sasl-admin", 0);
        try (Admin reader = Admin.create(plain(Tokens.token("reader", "read-only", "tenant-l")))) {
            // DescribeCluster as Metadata, DescribeProducers as reading the topic
            int node = reader.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            assertTrue(reader.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                    .activeProducers().isEmpty());
            // DescribeLogDirs (DESCRIBE on the cluster) and CreatePartitions (ALTER on the topic): admin
            ExecutionException dirs = assertThrows(ExecutionException.class,
                    () -> reader.describeLogDirs(List.of(node)).allDescriptions().get(30, TimeUnit.SECONDS));
            assertInstanceOf(ClusterAuthorizationException.class, dirs.getCause());
            ExecutionException grow = assertThrows(ExecutionException.class, () -> reader.createPartitions(
                    Map.of("sasl-admin", NewPartitions.increaseTo(2))).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, grow.getCause());
        }
    }

    @Test
    void writeOnlyCommitsTransactionsButOnlyReadWriteMovesTheirOffsets() throws Exception {
        try (Admin a = Admin.create(plain(Tokens.token("root", "admin", "tenant-t")))) {
            a.createTopics(List.of(new NewTopic("sasl-txn", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> p = transactionalProducer(Tokens.token("writer", "write-only", "tenant-t"),
                "sasl-writer")) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("sasl-txn", 0, null, new byte[] {1}));
            p.commitTransaction();
            p.beginTransaction();
            Exception e = assertThrows(Exception.class, () -> p.sendOffsetsToTransaction(
                    Map.of(new TopicPartition("sasl-txn", 0), new OffsetAndMetadata(1)),
                    new ConsumerGroupMetadata("sasl-txn-group")));
            assertTrue(authorizationFailure(e), e.toString());
        }
        try (KafkaProducer<byte[], byte[]> p = transactionalProducer(Tokens.token("copier", "read-write", "tenant-t"),
                "sasl-copier")) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>("sasl-txn", 0, null, new byte[] {2}));
            p.sendOffsetsToTransaction(Map.of(new TopicPartition("sasl-txn", 0), new OffsetAndMetadata(1)),
                    new ConsumerGroupMetadata("sasl-txn-group"));
            p.commitTransaction();
        }
        try (KafkaProducer<byte[], byte[]> p = transactionalProducer(Tokens.token("reader", "read-only", "tenant-t"),
                "sasl-reader")) {
            Exception e = assertThrows(Exception.class, p::initTransactions);
            assertTrue(authorizationFailure(e), e.toString());
        }
    }

    /** Whether {@code e} or one of its causes or suppressed exceptions is an authorization failure. */
    static boolean authorizationFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AuthorizationException) {
                return true;
            }
            for (Throwable s : t.getSuppressed()) {
                if (authorizationFailure(s)) {
                    return true;
                }
            }
        }
        return false;
    }
}
