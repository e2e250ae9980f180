package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.queen.auth.Tokens;
import io.queen.shutdown.AdmissionGate;
import io.queen.testing.Command;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

/**
 * The SASL exchange on the wire with authentication on: SaslHandshake v0 followed by a raw token (kafka-python's
 * framing) and v1 followed by SaslAuthenticate; what a client sends before authenticating closes its connection
 * unparsed; a refused request whose records are missing is answered, not dropped; and kcat, confluent-kafka
 * (librdkafka) and kafka-python authenticate with a JWT as the PLAIN password (tools installed by
 * scripts/install-test-tools.sh; a test whose tool is missing is skipped saying so).
 */
@QuarkusTest
@TestProfile(KafkaSaslTest.KafkaWithJwt.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaSaslWireTest extends KafkaListenerClients {
    @Inject
    AdmissionGate gate;

    static byte[] plain(String token) {
        return ("\0any\0" + token).getBytes(StandardCharsets.UTF_8);
    }

    Socket connect() throws IOException {
        return KafkaFrames.connect(listener.port());
    }

    /** SaslHandshake v1 and SaslAuthenticate with {@code token} as the PLAIN password on {@code s}. */
    static void authenticate(Socket s, String token) throws IOException {
        SaslHandshakeResponseData h = KafkaFrames.call(s, ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                new SaslHandshakeRequestData().setMechanism("PLAIN"));
        assertEquals(Errors.NONE.code(), h.errorCode());
        SaslAuthenticateResponseData a = KafkaFrames.call(s, ApiKeys.SASL_AUTHENTICATE, (short) 2, 2,
                new SaslAuthenticateRequestData().setAuthBytes(plain(token)));
        assertEquals(Errors.NONE.code(), a.errorCode(), a.errorMessage());
    }

    static ProduceRequestData nullRecords(String topic) {
        ProduceRequestData.TopicProduceData td = new ProduceRequestData.TopicProduceData().setName(topic);
        td.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(null));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(td);
        return new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics);
    }

    static void closedByTheBroker(Socket s) throws IOException {
        KafkaHostileProduceTest.closedByTheBroker(s);
    }

    @Test
    void aRequestBeforeAuthenticationClosesTheConnectionUnparsed() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(KafkaFrames.request(ApiKeys.PRODUCE, (short) 3, 1, nullRecords("t")));
            closedByTheBroker(s);
        }
        assertEquals(0, gate.running(), "a request left counted as running");
    }

    @Test
    void aRefusedProduceWithoutRecordsIsAnsweredWithTheAuthorizationError() throws Exception {
        try (Socket s = connect()) {
            authenticate(s, Tokens.token("reader", "read-only", "tenant-w"));
            ProduceResponseData answer = KafkaFrames.call(s, ApiKeys.PRODUCE, (short) 3, 3, nullRecords("t"));
            assertEquals(Errors.TOPIC_AUTHORIZATION_FAILED.code(),
                    answer.responses().iterator().next().partitionResponses().get(0).errorCode());
            MetadataResponseData m = KafkaFrames.call(s, ApiKeys.METADATA, (short) 1, 4, new MetadataRequestData());
            assertTrue(m.brokers().size() >= 1, "the connection still serves");
        }
        assertEquals(0, gate.running(), "a request left counted as running");
    }

    @Test
    void saslHandshakeV0IsFollowedByARawToken() throws Exception {
        try (Socket s = connect()) {
            SaslHandshakeResponseData h = KafkaFrames.call(s, ApiKeys.SASL_HANDSHAKE, (short) 0, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN"));
            assertEquals(Errors.NONE.code(), h.errorCode());
            byte[] token = plain(Tokens.token("raw", "admin", "tenant-w"));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(token.length);
            out.write(token);
            DataInputStream in = new DataInputStream(s.getInputStream());
            assertEquals(0, in.readInt(), "PLAIN's server token is empty");
            MetadataResponseData m = KafkaFrames.call(s, ApiKeys.METADATA, (short) 1, 2, new MetadataRequestData());
            assertTrue(m.brokers().size() >= 1);
        }
        try (Socket s = connect()) {
            KafkaFrames.call(s, ApiKeys.SASL_HANDSHAKE, (short) 0, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN"));
            byte[] token = plain("not-a-jwt");
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(token.length);
            out.write(token);
            closedByTheBroker(s);
        }
    }

    @Test
    void handshakeV0AndV1AreAnnounced() throws Exception {
        try (Socket s = connect()) {
            var v = (org.apache.kafka.common.message.ApiVersionsResponseData) KafkaFrames.call(s,
                    ApiKeys.API_VERSIONS, (short) 3, 1, new org.apache.kafka.common.message.ApiVersionsRequestData()
                            .setClientSoftwareName("t").setClientSoftwareVersion("1"));
            var h = v.apiKeys().find(ApiKeys.SASL_HANDSHAKE.id);
            assertArrayEquals(new short[] {0, 1}, new short[] {h.minVersion(), h.maxVersion()});
        }
    }

    @Test
    void kcatAuthenticatesWithTheJwtAsPlainPassword() throws Exception {
        assumeTrue(Files.isExecutable(KafkaToolsTest.KCAT), "kcat is not installed (scripts/install-test-tools.sh)");
        String token = Tokens.token("kcat", "admin", "tenant-k");
        List<String> sasl = List.of("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
                "-X", "sasl.username=any", "-X", "sasl.password=" + token);
        List<String> produce = new java.util.ArrayList<>(List.of(KafkaToolsTest.KCAT.toString(), "-P", "-b",
                bootstrap(), "-t", "kcat-sasl", "-p", "0"));
        produce.addAll(sasl);
        Command produced = Command.run("one\ntwo\n", produce);
        assertEquals(0, produced.exit(), produced.out());
        List<String> consume = new java.util.ArrayList<>(List.of(KafkaToolsTest.KCAT.toString(), "-C", "-b",
                bootstrap(), "-t", "kcat-sasl", "-p", "0", "-o", "beginning", "-e", "-q", "-f", "%o|%s\\n"));
        consume.addAll(sasl);
        Command consumed = Command.run(null, consume);
        assertEquals(0, consumed.exit(), consumed.out());
        assertEquals("0|one\n1|two\n", consumed.out());
    }

    @Test
    void confluentKafkaAuthenticatesWithTheJwtAsPlainPassword() throws Exception {
        assumeTrue(Files.isExecutable(KafkaToolsTest.PYTHON) && Files.isDirectory(
                Path.of("/usr/lib/python3/dist-packages/confluent_kafka")),
                "python3-confluent-kafka is not installed (scripts/install-test-tools.sh)");
        String script = """
                import sys
                from confluent_kafka import Producer, Consumer, TopicPartition
                conf = {'bootstrap.servers': sys.argv[1], 'security.protocol': 'SASL_PLAINTEXT',
                        'sasl.mechanisms': 'PLAIN', 'sasl.username': 'any', 'sasl.password': sys.argv[2]}
                p = Producer(conf)
                for i in range(3):
                    p.produce('ck-sasl', value=b'v%d' % i, partition=0)
                assert p.flush(30) == 0
                c = Consumer(dict(conf, **{'group.id': 'unused', 'enable.auto.commit': False}))
                c.assign([TopicPartition('ck-sasl', 0, 0)])
                got = []
                while len(got) < 3:
                    m = c.poll(10)
                    assert m is not None, 'timed out'
                    assert m.error() is None, m.error()
                    got.append('%d %s' % (m.offset(), m.value().decode()))
                c.close()
                print('\\n'.join(got))
                """;
        Command r = Command.run(null, List.of(KafkaToolsTest.PYTHON.toString(), "-c", script,
                bootstrap(), Tokens.token("ck", "admin", "tenant-c")));
        assertEquals(0, r.exit(), r.out());
        // librdkafka's own log lines ("%3|...") share the output: c.close() can tear down a coordinator connection
        // in the middle of its handshake and say so; what was read is the script's lines
        assertEquals("0 v0\n1 v1\n2 v2\n", r.out().lines().filter(l -> !l.startsWith("%"))
                .map(l -> l + "\n").collect(java.util.stream.Collectors.joining()), r.out());
    }

    @Test
    void kafkaPythonAuthenticatesWithTheJwtAsPlainPassword() throws Exception {
        assumeTrue(Files.isExecutable(KafkaToolsTest.PYTHON) && Files.isDirectory(
                Path.of("/usr/lib/python3/dist-packages/kafka")),
                "python3-kafka is not installed (scripts/install-test-tools.sh)");
        String script = """
                import sys
                from kafka import KafkaProducer, KafkaConsumer, TopicPartition
                conf = dict(bootstrap_servers=sys.argv[1], security_protocol='SASL_PLAINTEXT',
                            sasl_mechanism='PLAIN', sasl_plain_username='any', sasl_plain_password=sys.argv[2])
                p = KafkaProducer(acks='all', **conf)
                for i in range(3):
                    p.send('kp-sasl', value=b'v%d' % i, partition=0)
                p.flush(30)
                c = KafkaConsumer(consumer_timeout_ms=30000, auto_offset_reset='earliest', **conf)
                c.assign([TopicPartition('kp-sasl', 0)])
                got = []
                for m in c:
                    got.append('%d %s' % (m.offset, m.value.decode()))
                    if len(got) == 3:
                        break
                c.close()
                print('\\n'.join(got))
                """;
        Command r = Command.run(null, List.of(KafkaToolsTest.PYTHON.toString(), "-c", script,
                bootstrap(), Tokens.token("kp", "admin", "tenant-p")));
        assertEquals(0, r.exit(), r.out());
        assertEquals("0 v0\n1 v1\n2 v2\n", r.out());
    }
}
