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
 *   <li>outside io.queen: samples with no io.queen frame, by the top frame's package.</li>
 * </ul>
 */
public final class JfrTop {
    public static void main(String[] args) throws Exception {
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> byClass = new HashMap<>();
        Map<String, Integer> byMethod = new HashMap<>();
        Map<String, Integer> outside = new HashMap<>();
        long total = 0;
        long none = 0;
        try (RecordingFile f = new RecordingFile(Path.of(args[0]))) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
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
                Set<String> methods = new HashSet<>();
                for (RecordedFrame fr : frames) {
                    String cls = fr.getMethod().getType().getName();
                    if (cls.startsWith("io.queen.")) {
                        classes.add(cls);
                        methods.add(name(fr.getMethod()));
                    }
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
        print("outside io.queen, by top frame's package", outside, total, 15);
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
