package io.queen.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * Minimal Prometheus text-exposition reader: sums every sample of a metric name over all its label sets.
 * Used for the broker's segment counters ({@code queen_push_messages_total}, {@code queen_push_segments_total},
 * {@code queen_push_commits_total}).
 */
public final class PromScrape {

    public static final String MESSAGES = "queen_push_messages_total";
    public static final String SEGMENTS = "queen_push_segments_total";
    public static final String COMMITS = "queen_push_commits_total";

    /** Ratios derived from two scrapes; {@code null} fields mean "n/a". */
    public record SegmentFigures(Double messages, Double segments, Double commits,
                                 Double messagesPerSegment, Double segmentsPerCommit) {
        static final SegmentFigures NA = new SegmentFigures(null, null, null, null, null);
    }

    private PromScrape() {}

    /** Metric name to the sum of its sample values. Comment and malformed lines are skipped. */
    public static Map<String, Double> parse(String text) {
        Map<String, Double> out = new HashMap<>();
        for (String raw : text.split("\n")) {
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int nameEnd = 0;
            while (nameEnd < line.length()) {
                char c = line.charAt(nameEnd);
                if (c == '{' || c == ' ' || c == '\t') {
                    break;
                }
                nameEnd++;
            }
            String name = line.substring(0, nameEnd);
            String rest = line.substring(nameEnd);
            if (rest.startsWith("{")) {
                int close = closingBrace(rest);
                if (close < 0) {
                    continue;
                }
                rest = rest.substring(close + 1);
            }
            String[] parts = rest.trim().split("\\s+");
            if (name.isEmpty() || parts.length == 0 || parts[0].isEmpty()) {
                continue;
            }
            try {
                double v = switch (parts[0]) {
                    case "+Inf" -> Double.POSITIVE_INFINITY;
                    case "-Inf" -> Double.NEGATIVE_INFINITY;
                    default -> Double.parseDouble(parts[0]);
                };
                out.merge(name, v, Double::sum);
            } catch (NumberFormatException e) {
                // skip
            }
        }
        return out;
    }

    /** Index of the brace closing the label set, honouring quoted label values with escapes. */
    private static int closingBrace(String s) {
        boolean inQuote = false;
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inQuote) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inQuote = false;
                }
            } else if (c == '"') {
                inQuote = true;
            } else if (c == '}') {
                return i;
            }
        }
        return -1;
    }

    /** Deltas and ratios between two scrapes; n/a when a counter is missing or did not move. */
    public static SegmentFigures figures(Map<String, Double> before, Map<String, Double> after) {
        Double m = delta(before, after, MESSAGES);
        Double s = delta(before, after, SEGMENTS);
        Double c = delta(before, after, COMMITS);
        Double mps = (m != null && s != null && s > 0) ? m / s : null;
        Double spc = (s != null && c != null && c > 0) ? s / c : null;
        return new SegmentFigures(m, s, c, mps, spc);
    }

    /**
     * after − before. A counter absent from the earlier scrape but present in the later one counts from 0:
     * Micrometer registers a counter when its owner is first created, so on a fresh broker the push counters
     * only appear with the first push, after the start-of-window scrape.
     */
    private static Double delta(Map<String, Double> before, Map<String, Double> after, String name) {
        if (after == null || !after.containsKey(name)) {
            return null;
        }
        double b = before == null ? 0.0 : before.getOrDefault(name, 0.0);
        return after.get(name) - b;
    }
}
