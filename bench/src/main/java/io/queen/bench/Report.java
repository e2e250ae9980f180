package io.queen.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The figures of a run, their JSON form ({@code --json}) and their table form (stdout). */
public final class Report {

    /** Counts and rates over one time window. Rates are null when the window is empty. */
    public record Window(double seconds, long pushed, long delivered, long acked,
                         Double pushedPerSec, Double deliveredPerSec, Double ackedPerSec) {
        static Window between(Stats.Counts a, Stats.Counts b) {
            double s = Math.max(0, (b.nanos() - a.nanos()) / 1e9);
            long p = b.pushed() - a.pushed();
            long d = b.delivered() - a.delivered();
            long k = b.acked() - a.acked();
            return new Window(round3(s), p, d, k, rate(p, s), rate(d, s), rate(k, s));
        }

        private static Double rate(long n, double s) {
            return s > 0 ? round1(n / s) : null;
        }
    }

    /** Latency percentiles in microseconds; null when nothing was recorded. */
    public record Latency(long count, Long p50, Long p90, Long p99, Long p999, Long max) {
        static Latency of(Histogram h) {
            if (h.getTotalCount() == 0) {
                return new Latency(0, null, null, null, null, null);
            }
            return new Latency(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                    h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
        }
    }

    public record Phases(double warmupSeconds, double pushSeconds, double drainSeconds, String drainEnd) {}

    public record Totals(long pushed, long buffered, long delivered, long acked, long foreign) {}

    public record Verification(boolean enabled, List<Verifier.GroupSummary> groups, long verified, long lost,
                               long duplicates, long redelivered, long outOfOrder, boolean passed) {
        static Verification off() {
            return new Verification(false, List.of(), 0, 0, 0, 0, 0, true);
        }
    }

    public record Cpu(Long brokerPid, List<Long> pgPids, Double steadyBrokerSeconds, Double steadyPgSeconds,
                      Double cycleBrokerSeconds, Double cyclePgSeconds, Double microsPerMessage,
                      long perMessageCount, String perMessageBasis) {}

    public record Rss(Long startKb, Long endKb) {}

    /** One run (one system under test). {@code pickupLatencyMicros} is null unless {@code --pickup-latency}. */
    public record Run(String mode, String runId, Config config, Phases phases, Window steady, Window drain,
                      Window cycle, Latency pushLatencyMicros, Latency deliveryLatencyMicros,
                      Latency pickupLatencyMicros, Map<String, Long> errors, long errorsTotal, Totals totals, Verification verification,
                      PromScrape.SegmentFigures segments, Cpu cpu, Driver.Storage storage, Rss brokerRss,
                      List<String> notes) {

        /** Push throughput over the steady window. */
        @JsonProperty("pushRate")
        public Double pushRate() {
            return steady.pushedPerSec();
        }

        /** Pop+ack throughput: the drain window in phased runs, else steady start to drain end. */
        @JsonProperty("popAckRate")
        public Double consumeRate() {
            return config.phased() ? drain.ackedPerSec() : cycle.ackedPerSec();
        }

        @JsonProperty("passed")
        public boolean passed() {
            return errorsTotal == 0 && verification.passed();
        }
    }

    /** queen / baseline. */
    public record Ratios(Double pushPerSec, Double popAckPerSec, Double bytesPerMessage, Double diskBytesPerMessage,
                         Double cpuMicrosPerMessage) {}

    /** The whole JSON document. */
    public record Document(String tool, List<Run> runs, Ratios ratios, int exitCode, String closing) {}

    private Report() {}

    static double round1(double x) {
        return Math.round(x * 10) / 10.0;
    }

    static double round3(double x) {
        return Math.round(x * 1000) / 1000.0;
    }

    static Double ratio(Double a, Double b) {
        return a == null || b == null || b == 0 ? null : Math.round(a / b * 1000) / 1000.0;
    }

    public static Ratios ratios(Run baseline, Run queen) {
        return new Ratios(ratio(queen.pushRate(), baseline.pushRate()),
                ratio(queen.consumeRate(), baseline.consumeRate()),
                ratio(queen.storage().bytesPerMessage(), baseline.storage().bytesPerMessage()),
                ratio(queen.storage().diskBytesPerMessage(), baseline.storage().diskBytesPerMessage()),
                ratio(queen.cpu().microsPerMessage(), baseline.cpu().microsPerMessage()));
    }

    public static ObjectMapper mapper() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    public static String toJson(Document d) throws IOException {
        return mapper().writeValueAsString(d);
    }

    public static void writeJson(Document d, Path file) throws IOException {
        Files.writeString(file, toJson(d) + "\n");
    }

    /** The closing line, e.g. {@code bench: 1234 verified, 0 lost, 0 duplicated, 0 out-of-order}. */
    public static String closingLine(List<Run> runs) {
        long verified = 0;
        long lost = 0;
        long dup = 0;
        long ooo = 0;
        long errors = 0;
        boolean verifying = false;
        for (Run r : runs) {
            errors += r.errorsTotal();
            if (r.verification().enabled()) {
                verifying = true;
                verified += r.verification().verified();
                lost += r.verification().lost();
                dup += r.verification().duplicates();
                ooo += r.verification().outOfOrder();
            }
        }
        if (!verifying) {
            return String.format("bench: verification off, %d errors", errors);
        }
        return String.format("bench: %d verified, %d lost, %d duplicated, %d out-of-order, %d errors",
                verified, lost, dup, ooo, errors);
    }

    private static String n(Double d) {
        return d == null ? "n/a" : String.format(Locale.ROOT, "%,.1f", d);
    }

    private static String n2(Double d) {
        return d == null ? "n/a" : String.format(Locale.ROOT, "%,.2f", d);
    }

    private static String us(Long v) {
        return v == null ? "n/a" : String.format(Locale.ROOT, "%,d", v);
    }

    private static String l(Long v) {
        return v == null ? "n/a" : String.format(Locale.ROOT, "%,d", v);
    }

    public static String table(Run r) {
        var sb = new StringBuilder();
        Config c = r.config();
        sb.append(String.format("== %s run %s ==%n", r.mode(), r.runId()));
        sb.append(String.format("shape: %d queue(s) x %d partitions, %d B payloads, push batch %d x %d producers,"
                        + " pop batch %d x %d consumers x %d group(s), ack %s, %s%n",
                c.queues(), c.partitions(), c.payloadBytes(), c.pushBatch(), c.producers(), c.popBatch(),
                c.consumers(), Math.max(1, c.groups()), c.ack().name().toLowerCase(Locale.ROOT),
                (c.openLoop() ? String.format(Locale.ROOT, "open loop %.0f msg/s", c.rate()) : "closed loop")
                        + (c.openLoop() && c.arrivalBatches() ? ", pushes carry what arrived" : "")
                        + (c.minPopWaitMs() > 0 ? ", minPopWaitTime " + c.minPopWaitMs() + " ms" : "")
                        + (c.workMs() > 0 ? String.format(Locale.ROOT, ", work %s ms per message before the ack",
                                BigDecimal.valueOf(c.workMs()).stripTrailingZeros().toPlainString()) : "")));
        sb.append(String.format(Locale.ROOT, "phases: warm-up %.1f s, push %.1f s, drain %.1f s (%s)%n",
                r.phases().warmupSeconds(), r.phases().pushSeconds(), r.phases().drainSeconds(), r.phases().drainEnd()));
        sb.append(String.format("%-22s %14s %14s %14s %10s%n", "window", "pushed/s", "delivered/s", "acked/s", "seconds"));
        for (var w : List.of(Map.entry("steady (push phase)", r.steady()), Map.entry("drain", r.drain()),
                Map.entry("steady+drain", r.cycle()))) {
            Window x = w.getValue();
            sb.append(String.format(Locale.ROOT, "%-22s %14s %14s %14s %10.1f%n", w.getKey(), n(x.pushedPerSec()),
                    n(x.deliveredPerSec()), n(x.ackedPerSec()), x.seconds()));
        }
        sb.append(String.format("pop+ack rate used for comparisons: %s msg/s%n", n(r.consumeRate())));
        sb.append(String.format("%-22s %10s %10s %10s %10s %10s %10s%n", "latency (us)", "count", "p50", "p90", "p99",
                "p99.9", "max"));
        var latencies = new java.util.ArrayList<>(List.of(Map.entry("push request", r.pushLatencyMicros()),
                Map.entry("push-to-delivery", r.deliveryLatencyMicros())));
        if (r.pickupLatencyMicros() != null) {
            latencies.add(Map.entry("pickup (answer to pop)", r.pickupLatencyMicros()));
        }
        for (var e : latencies) {
            Latency x = e.getValue();
            sb.append(String.format(Locale.ROOT, "%-22s %10d %10s %10s %10s %10s %10s%n", e.getKey(), x.count(),
                    us(x.p50()), us(x.p90()), us(x.p99()), us(x.p999()), us(x.max())));
        }
        Totals t = r.totals();
        sb.append(String.format("totals: pushed %,d (buffered %,d), delivered %,d, acked %,d, foreign %,d%n",
                t.pushed(), t.buffered(), t.delivered(), t.acked(), t.foreign()));
        sb.append(String.format("errors: %d%s%n", r.errorsTotal(), r.errors().isEmpty() ? "" : " " + r.errors()));
        Verification v = r.verification();
        if (v.enabled()) {
            sb.append(String.format("%-16s %10s %10s %12s %10s %11s %8s %12s %11s%n", "verification", "expected",
                    "delivered", "exactly-once", "duplicates", "redelivered", "lost", "out-of-order", "unconfirmed"));
            for (Verifier.GroupSummary g : v.groups()) {
                sb.append(String.format("%-16s %10d %10d %12d %10d %11d %8d %12d %11d%n", g.group(), g.expected(),
                        g.delivered(), g.exactlyOnce(), g.duplicates(), g.redelivered(), g.lost(), g.outOfOrder(),
                        g.unconfirmed()));
            }
        } else {
            sb.append("verification: off\n");
        }
        var s = r.segments();
        sb.append(String.format("segments: %s msgs/segment, %s segments/commit (deltas: messages %s, segments %s, commits %s)%n",
                n2(s.messagesPerSegment()), n2(s.segmentsPerCommit()), n(s.messages()), n(s.segments()), n(s.commits())));
        Cpu cpu = r.cpu();
        sb.append(String.format("cpu seconds: steady broker %s / pg %s; steady+drain broker %s / pg %s;"
                        + " %s us per %s message (%,d messages)%n",
                n2(cpu.steadyBrokerSeconds()), n2(cpu.steadyPgSeconds()), n2(cpu.cycleBrokerSeconds()),
                n2(cpu.cyclePgSeconds()), n2(cpu.microsPerMessage()), cpu.perMessageBasis(), cpu.perMessageCount()));
        sb.append(String.format("cpu pids: broker %s, postgres %s%n", cpu.brokerPid() == null ? "n/a" : cpu.brokerPid(),
                cpu.pgPids()));
        Driver.Storage st = r.storage();
        sb.append(String.format("storage: %s bytes / %s messages = %s B/msg, on disk %s B/msg (%s)%n", l(st.bytes()),
                l(st.messages()), n(st.bytesPerMessage()), n(st.diskBytesPerMessage()), st.note()));
        sb.append(String.format("broker RSS: start %s kB, end %s kB%n", l(r.brokerRss().startKb()),
                l(r.brokerRss().endKb())));
        for (String note : r.notes()) {
            sb.append("note: ").append(note).append('\n');
        }
        return sb.toString();
    }

    public static String ratiosTable(Ratios x) {
        return String.format("ratios queen/baseline: push/s %s, pop+ack/s %s, bytes/msg %s (on disk %s), cpu us/msg %s%n",
                n2(x.pushPerSec()), n2(x.popAckPerSec()), n2(x.bytesPerMessage()), n2(x.diskBytesPerMessage()),
                n2(x.cpuMicrosPerMessage()));
    }
}
