import io.queen.browse.ReadStore;
import io.queen.envelope.KafkaRecordFormat;
import io.queen.segment.Frame;
import io.queen.segment.SegmentCodec;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongPredicate;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * What a Kafka Fetch spends turning stored segments into a record batch, without a broker, a database or a client:
 * the process's CPU (GC included) per record of {@code kafka.RecordBatches.build} over segments the Kafka listener
 * would have stored (idempotent records of the soak's 256-byte JSON values, zstd level 3), after 10 s of warm-up.
 * Run against a build, so two builds compare on the same machine in the same minute:
 * <pre>
 * java -cp '&lt;app&gt;/app/*:&lt;app&gt;/lib/main/*' bench/scripts/FetchEncodeBench.java [records per segment] [seconds]
 * </pre>
 * ({@code <app>}: a quarkus-app directory; defaults 1000 records per segment, 15 s).
 */
public class FetchEncodeBench {
    public static void main(String[] args) throws Exception {
        int perSegment = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        List<ReadStore.Segment> segments = new ArrayList<>();
        long base = 0;
        for (int s = 0; s < 20; s++, base += perSegment) {
            List<Frame> frames = new ArrayList<>();
            for (int i = 0; i < perSegment; i++) {
                String value = "{\"p\":1,\"s\":" + (base + i) + ",\"t\":123456789012,\"pad\":\"" + "x".repeat(200) + "\"}";
                byte[] record = KafkaRecordFormat.encode(System.currentTimeMillis(), null,
                        ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)), new Header[0]);
                frames.add(new Frame(UUID.randomUUID(), null, "kafka:1000:0:" + (base + i), null, false, record, true));
            }
            segments.add(new ReadStore.Segment(base, base + perSegment - 1, OffsetDateTime.now(),
                    SegmentCodec.encode(frames, 3)));
        }
        Object batches = recordBatches();
        Method build = batches.getClass().getMethod("build", List.class, long.class, int.class, long.class,
                LongPredicate.class);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long warmEnd = System.nanoTime() + 10_000_000_000L;
        long end = Long.MAX_VALUE;
        long cpuFrom = 0;
        long records = 0;
        long bytes = 0;
        while (System.nanoTime() < end) {
            if (end == Long.MAX_VALUE && System.nanoTime() > warmEnd) {
                end = System.nanoTime() + seconds * 1_000_000_000L;
                cpuFrom = os.getProcessCpuTime();
                records = 0;
            }
            for (ReadStore.Segment s : segments) {
                MemoryRecords batch = (MemoryRecords) build.invoke(batches, List.of(s), s.baseOffset(), 1 << 20,
                        Long.MAX_VALUE, null);
                bytes += batch.sizeInBytes();
                records += perSegment;
            }
        }
        long cpu = os.getProcessCpuTime() - cpuFrom;
        System.out.printf("%d records in %d s, %.1f ns of CPU per record (%d batch bytes)%n", records, seconds,
                (double) cpu / records, bytes);
    }

    /** A RecordBatches with a PayloadCipher without a key (every stored frame is plaintext). */
    private static Object recordBatches() throws Exception {
        Class<?> config = Class.forName("io.queen.config.QueenConfig");
        Object noKey = Proxy.newProxyInstance(config.getClassLoader(), new Class<?>[] {config},
                (proxy, m, a) -> m.getName().equals("encryptionKey") ? Optional.empty() : null);
        var cipher = Class.forName("io.queen.crypto.PayloadCipher").getDeclaredConstructor(config);
        cipher.setAccessible(true);
        var batches = Class.forName("io.queen.kafka.RecordBatches").getDeclaredConstructors()[0];
        batches.setAccessible(true);
        return batches.newInstance(cipher.newInstance(noKey), null);
    }
}
