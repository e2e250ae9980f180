package io.queen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {

    static Report.Run run(String mode, double pushRate, double ackRate, double bytesPerMsg, double cpuPerMsg,
                          long lost) throws Exception {
        Config cfg = Cli.parse("--preset", "smoke");
        Histogram h = new Histogram(3);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i);
        }
        var steady = new Report.Window(10, (long) (pushRate * 10), (long) (ackRate * 10), (long) (ackRate * 10),
                pushRate, ackRate, ackRate);
        var drain = new Report.Window(1, 0, 0, 0, 0.0, 0.0, 0.0);
        var g = new Verifier.GroupSummary("__QUEUE_MODE__", 3000, 3000 - lost, 3000 - lost, 0, 0, lost, 0, 0);
        return new Report.Run(mode, "r1", cfg, new Report.Phases(0, 10, 1, "complete"), steady, drain, steady,
                Report.Latency.of(h), Report.Latency.of(new Histogram(3)), null, Map.of(), 0,
                new Report.Totals(3000, 0, 3000, 3000, 0),
                new Report.Verification(true, List.of(g), 3000 - lost, lost, 0, 0, 0, lost == 0),
                PromScrape.figures(Map.of(), Map.of()),
                new Report.Cpu(null, List.of(1L), null, 0.5, null, 0.6, cpuPerMsg, 3000, "acked"),
                new Driver.Storage(1000L, 10L, bytesPerMsg, bytesPerMsg * 1.1, "test"), new Report.Rss(null, null), List.of("n"));
    }

    @Test
    void jsonShape() throws Exception {
        Report.Run b = run("baseline", 1000, 800, 400, 50, 0);
        Report.Run q = run("queen", 4000, 2000, 100, 25, 0);
        Report.Ratios ratios = Report.ratios(b, q);
        var doc = new Report.Document("queen-bench", List.of(b, q), ratios, 0, Report.closingLine(List.of(b, q)));
        JsonNode root = Report.mapper().readTree(Report.toJson(doc));

        assertEquals("queen-bench", root.get("tool").asText());
        assertEquals(0, root.get("exitCode").asInt());
        assertEquals(2, root.get("runs").size());
        JsonNode r = root.get("runs").get(1);
        assertEquals("queen", r.get("mode").asText());
        for (String k : List.of("config", "phases", "steady", "drain", "cycle", "pushLatencyMicros",
                "deliveryLatencyMicros", "errors", "errorsTotal", "totals", "verification", "segments", "cpu",
                "storage", "brokerRss", "notes", "pushRate", "popAckRate", "passed")) {
            assertTrue(r.has(k), k);
        }
        for (String k : List.of("pushedPerSec", "deliveredPerSec", "ackedPerSec", "seconds", "pushed")) {
            assertTrue(r.get("steady").has(k), k);
        }
        JsonNode lat = r.get("pushLatencyMicros");
        for (String k : List.of("count", "p50", "p90", "p99", "p999", "max")) {
            assertTrue(lat.has(k), k);
        }
        assertEquals(1000, lat.get("count").asLong());
        assertEquals(500, lat.get("p50").asLong(), 1);
        assertEquals(1000, lat.get("max").asLong(), 1);
        assertTrue(r.get("deliveryLatencyMicros").get("p50").isNull(), "empty histogram -> null");
        assertTrue(r.get("segments").get("messagesPerSegment").isNull(), "n/a -> null");
        assertEquals("__QUEUE_MODE__", r.get("verification").get("groups").get(0).get("group").asText());
        assertEquals("SMOKE".toLowerCase(), r.get("config").get("preset").asText());
        assertEquals(4.0, root.get("ratios").get("pushPerSec").asDouble());
        assertEquals(2.5, root.get("ratios").get("popAckPerSec").asDouble());
        assertEquals(0.25, root.get("ratios").get("bytesPerMessage").asDouble());
        assertEquals(0.25, root.get("ratios").get("diskBytesPerMessage").asDouble());
        assertEquals(0.5, root.get("ratios").get("cpuMicrosPerMessage").asDouble());
        assertTrue(r.get("passed").asBoolean());
        assertTrue(r.get("pickupLatencyMicros").isNull(), "not measured -> null");
    }

    @Test
    void pickupRowAndWorkOnlyWhenTheRunHasThem() throws Exception {
        Report.Run plain = run("queen", 1, 1, 1, 1, 0);
        assertFalse(Report.table(plain).contains("pickup"));
        assertFalse(Report.table(plain).contains("work"));

        Histogram h = new Histogram(3);
        h.recordValue(1500);
        Config jobs = Cli.parse("--preset", "jobs", "--work-ms", "0.5");
        Report.Run r = new Report.Run(plain.mode(), plain.runId(), jobs, plain.phases(), plain.steady(),
                plain.drain(), plain.cycle(), plain.pushLatencyMicros(), plain.deliveryLatencyMicros(),
                Report.Latency.of(h), plain.errors(), plain.errorsTotal(), plain.totals(), plain.verification(),
                plain.segments(), plain.cpu(), plain.storage(), plain.brokerRss(), plain.notes());
        String table = Report.table(r);
        assertTrue(table.contains("open loop 500 msg/s, pushes carry what arrived, work 0.5 ms per message"
                + " before the ack"), table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("pickup (answer to pop)") && l.contains("1,500")), table);
    }

    @Test
    void closingLineAndPassFlag() throws Exception {
        Report.Run ok = run("queen", 1, 1, 1, 1, 0);
        Report.Run bad = run("queen", 1, 1, 1, 1, 2);
        assertEquals("bench: 3000 verified, 0 lost, 0 duplicated, 0 out-of-order, 0 errors",
                Report.closingLine(List.of(ok)));
        assertEquals("bench: 2998 verified, 2 lost, 0 duplicated, 0 out-of-order, 0 errors",
                Report.closingLine(List.of(bad)));
        assertTrue(ok.passed());
        assertFalse(bad.passed());
        String table = Report.table(ok);
        assertTrue(table.contains("push request"));
        assertTrue(table.contains("p99.9"));
    }

    @Test
    void windowRates() {
        var a = new Stats.Counts(0, 0, 0, 0, 0);
        var b = new Stats.Counts(2_000_000_000L, 1000, 500, 400, 0);
        var w = Report.Window.between(a, b);
        assertEquals(2.0, w.seconds());
        assertEquals(500.0, w.pushedPerSec());
        assertEquals(250.0, w.deliveredPerSec());
        assertEquals(200.0, w.ackedPerSec());
        assertEquals(null, Report.Window.between(a, a).pushedPerSec());
    }
}
