package io.queen.bench;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PromScrapeTest {

    @Test
    void sumsSamplesOverLabelSets() {
        String text = """
                # HELP queen_push_messages_total Messages pushed
                # TYPE queen_push_messages_total counter
                queen_push_messages_total{queue="a",note="x} y"} 1000.0
                queen_push_messages_total{queue="b"} 500
                queen_push_segments_total 30 1700000000000
                queen_push_commits_total{scope="cluster"} 1.5E1
                queen_uptime_seconds 12.5
                broken_line
                """;
        Map<String, Double> m = PromScrape.parse(text);
        assertEquals(1500.0, m.get(PromScrape.MESSAGES));
        assertEquals(30.0, m.get(PromScrape.SEGMENTS));
        assertEquals(15.0, m.get(PromScrape.COMMITS));
        assertEquals(12.5, m.get("queen_uptime_seconds"));
        assertNull(m.get("broken_line"));
    }

    @Test
    void ratiosFromDeltas() {
        var before = Map.of(PromScrape.MESSAGES, 100.0, PromScrape.SEGMENTS, 10.0, PromScrape.COMMITS, 5.0);
        var after = Map.of(PromScrape.MESSAGES, 10_100.0, PromScrape.SEGMENTS, 60.0, PromScrape.COMMITS, 30.0);
        var f = PromScrape.figures(before, after);
        assertEquals(10_000.0, f.messages());
        assertEquals(200.0, f.messagesPerSegment());
        assertEquals(2.0, f.segmentsPerCommit());
    }

    @Test
    void countersRegisteredAfterTheFirstScrapeCountFromZero() {
        // a fresh broker registers the push counters only with its first push (after scrape A)
        var before = Map.of("jvm_threads_live_threads", 30.0);
        String after = """
                # TYPE queen_push_messages counter
                # HELP queen_push_messages messages committed to the log
                queen_push_messages_total 3000.0
                queen_push_messages_created 1.7e9
                # TYPE queen_push_segments counter
                queen_push_segments_total 30.0
                # TYPE queen_push_commits counter
                queen_push_commits_total 15.0
                # EOF
                """;
        var f = PromScrape.figures(before, PromScrape.parse(after));
        assertEquals(100.0, f.messagesPerSegment());
        assertEquals(2.0, f.segmentsPerCommit());
    }

    @Test
    void missingOrIdleCountersAreNa() {
        var f = PromScrape.figures(Map.of(), Map.of(PromScrape.MESSAGES, 1.0));
        assertNull(f.messagesPerSegment());
        assertNull(f.segmentsPerCommit());
        var idle = Map.of(PromScrape.MESSAGES, 1.0, PromScrape.SEGMENTS, 1.0, PromScrape.COMMITS, 1.0);
        var g = PromScrape.figures(idle, idle);
        assertNull(g.messagesPerSegment());
        assertNull(g.segmentsPerCommit());
    }
}
