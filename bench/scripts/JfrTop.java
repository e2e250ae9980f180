import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingFile;

/**
 * Top frames of a JFR recording's execution samples ({@code jdk.ExecutionSample}), run as a source file:
 * {@code java bench/scripts/JfrTop.java <recording.jfr> [top=25]}. Prints, as shares of all samples:
 * <ul>
 *   <li>self: the method on top of the stack;</li>
 *   <li>by io.queen class, inclusive: samples with any frame of the class on the stack;</li>
 *   <li>by io.queen method, inclusive;</li>
 *   <li>by innermost io.queen class: each sample charged to the io.queen frame nearest the top of its stack, so a
 *       class's share is its own code plus the library code it calls before the next io.queen frame (for a filter
 *       or a Netty handler: its own work plus the dispatch up to the next io.queen frame);</li>
 *   <li>outside io.queen: samples with no io.queen frame, by the top frame's package;</li>
 *   <li>per-request stages, own work: each filter or gate every request passes (the connection deadline, the
 *       admission and schema gates, body reading, URI checks, router errors, authentication, tenancy, operation
 *       counters, Quarkus' own HTTP filters), charged with the samples whose nearest stage frame to the top of the
 *       stack has no frame above it that hands the request on ({@code RoutingContext.next}, the router's
 *       {@code handle}, Quarkus' request and response wrappers, Netty's {@code fire*}/{@code invoke*}/{@code write}/
 *       {@code flush}): the stage's own code and the library code it calls, without the rest of the request it
 *       passes along. Every stage is listed, at 0.00% when no sample fell in it;</li>
 *   <li>Java threads' CPU ({@code jdk.ThreadCPULoad}) by thread name with digits folded: how much goes to the JIT
 *       compiler, the virtual-thread carriers and the event loops (GC threads are not Java threads and not
 *       listed).</li>
 * </ul>
 */
public final class JfrTop {
    /** Stage name, then the class names (prefixes: nested classes and lambdas count) that make up the stage. */
    private static final String[][] STAGES = {
        {"connection deadline", "io.queen.net.ConnectionGuard"},
        {"admission/drain gate", "io.queen.shutdown.AdmissionGate", "io.queen.shutdown.DrainState"},
        {"schema gate", "io.queen.schema.SchemaGate"},
        {"body reading", "io.queen.api.WholeBodyReader", "io.queen.push.PushBodyReader" /* builds before WholeBodyReader */},
        {"URI checks", "io.queen.api.UriChecks"},
        {"router errors", "io.queen.api.RouterErrors"},
        {"authentication", "io.queen.auth.AccessFilter"},
        {"tenancy", "io.queen.auth.Callers"},
        {"operation counters", "io.queen.metrics.OpsMeter"},
        {"Quarkus HTTP filters", "io.quarkus.vertx.http.runtime.filters."},
    };

    public static void main(String[] args) throws Exception {
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> byClass = new HashMap<>();
        Map<String, Integer> byMethod = new HashMap<>();
        Map<String, Integer> outside = new HashMap<>();
        Map<String, Integer> innermost = new HashMap<>();
        Map<String, Integer> stageOwn = new HashMap<>();
        long total = 0;
        long none = 0;
        Map<String, Double> threadCpu = new HashMap<>();
        try (RecordingFile f = new RecordingFile(Path.of(args[0]))) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                if (e.getEventType().getName().equals("jdk.ThreadCPULoad") && e.getThread() != null) {
                    String t = e.getThread().getJavaName() != null ? e.getThread().getJavaName() : e.getThread().getOSName();
                    threadCpu.merge(String.valueOf(t).replaceAll("[0-9]+", "N"),
                            (double) e.getFloat("user") + e.getFloat("system"), Double::sum);
                    continue;
                }
                if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                    continue;
                }
                List<RecordedFrame> frames = e.getStackTrace().getFrames();
                if (frames.isEmpty()) {
                    continue;
                }
                total++;
                self.merge(name(frames.get(0).getMethod()), 1, Integer::sum);
                Set<String> classes = new HashSet<>();
                String inner = null;
                Set<String> methods = new HashSet<>();
                for (RecordedFrame fr : frames) {
                    String cls = fr.getMethod().getType().getName();
                    if (cls.startsWith("io.queen.")) {
                        if (inner == null) {
                            inner = cls.replaceAll("\\$\\$Lambda.*|_ClientProxy$", "");
                            innermost.merge(inner, 1, Integer::sum);
                        }
                        classes.add(cls);
                        methods.add(name(fr.getMethod()));
                    }
                }
                String stage = ownStage(frames);
                if (stage != null) {
                    stageOwn.merge(stage, 1, Integer::sum);
                }
                classes.forEach(c -> byClass.merge(c, 1, Integer::sum));
                methods.forEach(m -> byMethod.merge(m, 1, Integer::sum));
                if (classes.isEmpty()) {
                    none++;
                    String cls = frames.get(0).getMethod().getType().getName();
                    int dot = cls.lastIndexOf('.');
                    outside.merge(dot < 0 ? cls : cls.substring(0, dot), 1, Integer::sum);
                }
            }
        }
        System.out.printf("%,d execution samples; %.1f%% outside any io.queen frame%n", total, pct(none, total));
        print("self (top of stack)", self, total, top);
        print("by io.queen class (inclusive)", byClass, total, top);
        print("by io.queen method (inclusive)", byMethod, total, top);
        print("by innermost io.queen class (own code + library code it calls)", innermost, total, top);
        print("outside io.queen, by top frame's package", outside, total, 15);
        System.out.println();
        System.out.println("== per-request stages, own work (not the request they hand on)");
        for (String[] st : STAGES) {
            System.out.printf("%6.2f%%  %s%n", pct(stageOwn.getOrDefault(st[0], 0), total), st[0]);
        }
        double cpu = threadCpu.values().stream().mapToDouble(Double::doubleValue).sum();
        System.out.println();
        System.out.println("== Java threads' CPU by thread name (share of all Java threads' CPU)");
        threadCpu.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(10)
                .forEach(en -> System.out.printf("%6.2f%%  %s%n", cpu == 0 ? 0 : 100 * en.getValue() / cpu, en.getKey()));
    }

    /** The stage whose own work this sample is, or null: see the class comment. */
    private static String ownStage(List<RecordedFrame> frames) {
        for (RecordedFrame fr : frames) {
            String cls = fr.getMethod().getType().getName();
            String method = fr.getMethod().getName();
            if (handsOn(cls, method)) {
                return null;
            }
            for (String[] st : STAGES) {
                for (int i = 1; i < st.length; i++) {
                    if (cls.startsWith(st[i])) {
                        return st[0];
                    }
                }
            }
        }
        return null;
    }

    private static boolean handsOn(String cls, String method) {
        if (cls.startsWith("io.vertx.ext.web.") && cls.contains("RoutingContext")) {
            return method.equals("next") || method.equals("iterateNext");
        }
        if (cls.equals("io.vertx.ext.web.impl.RouterImpl")) {
            return method.equals("handle");
        }
        if (cls.startsWith("io.quarkus.vertx.http.runtime.filters.") && cls.endsWith("Wrapper")) {
            // Quarkus' request and response wrappers pass the request's writes and completion to Vert.x: that is the
            // response being written, not a filter's work.
            return true;
        }
        if (cls.equals("io.netty.channel.AbstractChannelHandlerContext")) {
            return method.startsWith("fire") || method.startsWith("invoke") || method.equals("write")
                    || method.equals("writeAndFlush") || method.equals("flush");
        }
        return false;
    }

    private static String name(RecordedMethod m) {
        return m.getType().getName() + "." + m.getName();
    }

    private static double pct(long n, long total) {
        return total == 0 ? 0 : 100.0 * n / total;
    }

    private static void print(String title, Map<String, Integer> counts, long total, int top) {
        System.out.println();
        System.out.println("== " + title);
        List<Map.Entry<String, Integer>> es = new ArrayList<>(counts.entrySet());
        es.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
        for (int i = 0; i < Math.min(top, es.size()); i++) {
            System.out.printf("%6.2f%%  %s%n", pct(es.get(i).getValue(), total), es.get(i).getKey());
        }
    }
}
