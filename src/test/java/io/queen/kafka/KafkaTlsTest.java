package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.queen.kafka.transport.KafkaListener;
import io.queen.testing.FreshDatabase;
import io.queen.testing.SelfSignedKeyStore;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** With the broker's TLS certificate configured, the Kafka port speaks TLS: the Java client produces over SSL. */
@QuarkusTest
@TestProfile(KafkaTlsTest.KafkaWithTls.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaTlsTest {
    static final String PASSWORD = "queen-test";

    public static class KafkaWithTls implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> m = new HashMap<>(new KafkaEnabled().getConfigOverrides());
            m.put("quarkus.http.ssl.certificate.key-store-file", SelfSignedKeyStore.create(PASSWORD).toString());
            m.put("quarkus.http.ssl.certificate.key-store-password", PASSWORD);
            m.put("quarkus.http.test-ssl-port", "0");
            return m;
        }
    }

    @Inject
    KafkaListener listener;

    @ConfigProperty(name = "quarkus.http.ssl.certificate.key-store-file")
    String keystore;

    @Test
    void theJavaClientProducesOverTls() throws Exception {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + listener.port());
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, keystore);
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PASSWORD);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            assertEquals(0, producer.send(new ProducerRecord<>("tls-topic", 0, null, new byte[] {1})).get().offset());
        }
    }
}
