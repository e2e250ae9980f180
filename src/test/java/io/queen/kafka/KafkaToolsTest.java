package io.queen.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.queen.testing.Command;
import io.queen.testing.FreshDatabase;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Other clients than Java's against the listener: Debian's {@code kcat} produces and consumes with keys,
 * {@code confluent-kafka} for Debian's Python (librdkafka) produces with headers and consumes, and kafka-python
 * (pure Python) produces and consumes in a consumer group that commits (installed by scripts/install-test-tools.sh;
 * skipped where they are missing).
 */
@QuarkusTest
@TestProfile(KafkaEnabled.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class KafkaToolsTest extends KafkaListenerClients {
    static final Path KCAT = Path.of("/usr/bin/kcat");
    static final Path PYTHON = Path.of("/usr/bin/python3");


    @Test
    void kcatProducesAndConsumes() throws Exception {
        assumeTrue(Files.isExecutable(KCAT), "kcat is not installed (scripts/install-test-tools.sh)");
        Command produced = Command.run("k1:plain value\nk2:{\"a\": 1}\n:no key\n",
                List.of(KCAT.toString(), "-P", "-b", bootstrap(), "-t", "kcat-topic", "-p", "1", "-K", ":"));
        assertEquals(0, produced.exit(), produced.out());
        Command consumed = Command.run(null, List.of(KCAT.toString(), "-C", "-b", bootstrap(), "-t", "kcat-topic", "-p", "1",
                "-o", "beginning", "-e", "-q", "-f", "%o|%k|%s\\n"));
        assertEquals(0, consumed.exit(), consumed.out());
        assertEquals("0|k1|plain value\n1|k2|{\"a\": 1}\n2||no key\n", consumed.out());
        Command metadata = Command.run(null, List.of(KCAT.toString(), "-L", "-b", bootstrap(), "-t", "kcat-topic"));
        assertTrue(metadata.out().contains("topic \"kcat-topic\" with 3 partitions"), metadata.out());
    }

    @Test
    void confluentKafkaForPythonProducesAndConsumes() throws Exception {
        assumeTrue(Files.isExecutable(PYTHON) && Files.isDirectory(
                Path.of("/usr/lib/python3/dist-packages/confluent_kafka")),
                "python3-confluent-kafka is not installed (scripts/install-test-tools.sh)");
        String script = """
                import sys
                from confluent_kafka import Producer, Consumer, TopicPartition
                b = sys.argv[1]
                p = Producer({'bootstrap.servers': b, 'enable.idempotence': True})
                for i in range(5):
                    p.produce('py-topic', value=('{"n": %d}' % i).encode(), key=b'k%d' % i, partition=0,
                              headers=[('h', b'v%d' % i)])
                assert p.flush(30) == 0
                c = Consumer({'bootstrap.servers': b, 'group.id': 'unused', 'enable.auto.commit': False})
                c.assign([TopicPartition('py-topic', 0, 0)])
                got = []
                while len(got) < 5:
                    m = c.poll(10)
                    assert m is not None, 'timed out'
                    assert m.error() is None, m.error()
                    got.append('%d %s %s %s' % (m.offset(), m.key().decode(), m.value().decode(), dict(m.headers())['h'].decode()))
                c.close()
                print('\\n'.join(got))
                """;
        Command r = Command.run(null, List.of(PYTHON.toString(), "-c", script, bootstrap()));
        assertEquals(0, r.exit(), r.out());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            expected.add(i + " k" + i + " {\"n\": " + i + "} v" + i);
        }
        assertEquals(String.join("\n", expected) + "\n", r.out());
    }

    @Test
    void kafkaPythonProducesAndConsumesInAGroupThatCommits() throws Exception {
        assumeTrue(Files.isExecutable(PYTHON) && Files.isDirectory(Path.of("/usr/lib/python3/dist-packages/kafka")),
                "python3-kafka is not installed (scripts/install-test-tools.sh)");
        String script = """
                import sys, json
                from kafka import KafkaProducer, KafkaConsumer
                b = sys.argv[1]
                p = KafkaProducer(bootstrap_servers=b, acks='all', key_serializer=str.encode,
                                  value_serializer=lambda v: json.dumps(v).encode())
                for i in range(10):
                    p.send('kp-topic', key='k%d' % (i % 2), value={'n': i}, headers=[('h', b'v%d' % i)])
                p.flush(30)
                c = KafkaConsumer('kp-topic', bootstrap_servers=b, group_id='kp-group', auto_offset_reset='earliest',
                                  enable_auto_commit=False, consumer_timeout_ms=30000)
                got = []
                for m in c:
                    got.append('%d %s %d %s' % (m.offset, m.key.decode(), json.loads(m.value)['n'],
                                                dict(m.headers)['h'].decode()))
                    if len(got) == 10:
                        break
                c.commit()
                print('\\n'.join(got))
                print('committed', sorted((tp.partition, c.committed(tp)) for tp in c.assignment() if c.committed(tp)))
                c.close()
                """;
        Command r = Command.run(null, List.of(PYTHON.toString(), "-c", script, bootstrap()));
        assertEquals(0, r.exit(), r.out());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add(i + " k" + (i % 2) + " " + i + " v" + i);
        }
        // both keys hash (murmur2, as Java's default partitioner) to partition 2 of the topic's 3
        expected.add("committed [(2, 10)]");
        assertEquals(String.join("\n", expected) + "\n", r.out());
    }
}
