package io.queen.metrics;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceMetrics;
import io.queen.config.QueenConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Readings of this broker process: CPU time split into user and system, resident and virtual memory, heap, DB pool
 * and threads, plus the broker's host name and HTTP port that label its metric rows (with the worker id of
 * {@code io.queen.workers.WorkerRegistry}).
 *
 * <p>CPU and memory come from {@code /proc/self} on Linux (the JVM exposes no user/system split); elsewhere user
 * time is the JVM's process CPU time, system time 0 and memory -1. Thread-safety: stateless readers, safe from
 * any thread.
 */
@ApplicationScoped
public class ProcessStats {
    private static final Path STAT = Path.of("/proc/self/stat");
    private static final Path STATM = Path.of("/proc/self/statm");
    /** USER_HZ: Linux reports /proc CPU times in 1/100 s on every architecture Java runs on. */
    private static final long TICK_MICROS = 10_000;
    private static final long PAGE = 4096;

    private final AgroalDataSource ds;
    private final int poolMax;
    private final String hostname;
    private final int port;
    private final long startedNanos = System.nanoTime();

    ProcessStats(AgroalDataSource ds, QueenConfig config,
            @ConfigProperty(name = "quarkus.datasource.jdbc.max-size", defaultValue = "20") int poolMax,
            @ConfigProperty(name = "quarkus.http.port", defaultValue = "6632") int port) {
        this.ds = ds;
        this.poolMax = poolMax;
        this.port = port;
        this.hostname = config.metrics().hostname().filter(h -> !h.isBlank()).orElseGet(ProcessStats::localHost);
    }

    private static String localHost() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    public String hostname() {
        return hostname;
    }

    public int port() {
        return port;
    }

    public double uptimeSeconds() {
        return (System.nanoTime() - startedNanos) / 1e9;
    }

    /** Process CPU time {user, system} in microseconds since start. */
    public long[] cpuMicros() {
        try {
            String s = Files.readString(STAT);
            // fields after the ")" that closes the command name: state is field 3, utime 14, stime 15
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[11]) * TICK_MICROS, Long.parseLong(f[12]) * TICK_MICROS};
        } catch (IOException | RuntimeException e) {
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            long nanos = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
            return new long[] {Math.max(0, nanos / 1000), 0};
        }
    }

    /** {resident, virtual} memory in bytes; -1 when unknown. */
    public long[] memoryBytes() {
        try {
            String[] f = Files.readString(STATM).trim().split(" ");
            return new long[] {Long.parseLong(f[1]) * PAGE, Long.parseLong(f[0]) * PAGE};
        } catch (IOException | RuntimeException e) {
            return new long[] {-1, -1};
        }
    }

    public MemoryUsage heap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    }

    public MemoryUsage nonHeap() {
        return ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
    }

    public ThreadMXBean threads() {
        return ManagementFactory.getThreadMXBean();
    }

    /** Configured maximum pool size. */
    public int poolMax() {
        return poolMax;
    }

    /** Connections handed out right now. */
    public long poolActive() {
        return metrics().activeCount();
    }

    /** Open connections not in use. */
    public long poolIdle() {
        return metrics().availableCount();
    }

    /** Threads waiting for a connection. */
    public long poolWaiting() {
        return metrics().awaitingCount();
    }

    private AgroalDataSourceMetrics metrics() {
        return ds.getMetrics();
    }
}
