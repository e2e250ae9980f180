package io.queen.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliTest {

    @Test
    void defaults() throws Exception {
        Config c = Cli.parse();
        assertEquals("http://127.0.0.1:6632", c.url());
        assertEquals("bench", c.queue());
        assertEquals(1, c.queues());
        assertEquals(10, c.partitions());
        assertEquals(256, c.payloadBytes());
        assertEquals(100, c.pushBatch());
        assertEquals(4, c.producers());
        assertEquals(100, c.popBatch());
        assertEquals(4, c.consumers());
        assertEquals(0, c.groups());
        assertEquals(Config.AckMode.EXPLICIT, c.ack());
        assertEquals(0.0, c.rate());
        assertEquals(30, c.duration());
        assertEquals(0, c.messages());
        assertEquals(5, c.warmup());
        assertEquals(0, c.dedupWindow());
        assertFalse(c.retention());
        assertTrue(c.verify());
        assertNull(c.brokerPid());
        assertEquals(List.of(), c.pgPids());
        assertEquals(Config.Mode.QUEEN, c.mode());
        assertEquals("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres", c.pgUrl());
        assertEquals(2000, c.popWaitMs());
        assertFalse(c.wildcard());
        assertFalse(c.phased());
        assertEquals(60, c.drainTimeout());
        assertTrue(c.cleanup());
        assertFalse(c.messageBounded());
        assertFalse(c.openLoop());
        assertEquals(java.util.Collections.singletonList(null), c.groupNames());
    }

    @Test
    void flagForms() throws Exception {
        Config c = Cli.parse("--url", "http://127.0.0.1:7000/", "--partitions=7", "--retention", "--verify", "false",
                "--wildcard", "--ack", "auto", "--groups", "3", "--rate", "2500.5", "--pg-pids", "10, 11",
                "--broker-pid", "42", "--mode", "queen", "--messages", "1_000");
        assertEquals("http://127.0.0.1:7000", c.url(), "trailing slash removed");
        assertEquals(7, c.partitions());
        assertTrue(c.retention());
        assertFalse(c.verify());
        assertTrue(c.wildcard());
        assertEquals(Config.AckMode.AUTO, c.ack());
        assertEquals(List.of("g0", "g1", "g2"), c.groupNames());
        assertEquals(2500.5, c.rate());
        assertEquals(List.of(10L, 11L), c.pgPids());
        assertEquals(42L, c.brokerPid());
        assertEquals(1000, c.messages());
        assertTrue(c.messageBounded());
        assertTrue(c.openLoop());
    }

    @Test
    void presetThenExplicitFlagsWinWhateverTheOrder() throws Exception {
        Config smoke = Cli.parse("--preset", "smoke");
        assertEquals(4, smoke.partitions());
        assertEquals(2, smoke.producers());
        assertEquals(2, smoke.consumers());
        assertEquals(3000, smoke.messages());
        assertEquals(0, smoke.warmup());
        assertTrue(smoke.verify());

        Config a = Cli.parse("--partitions", "9", "--preset", "smoke");
        Config b = Cli.parse("--preset", "smoke", "--partitions", "9");
        assertEquals(9, a.partitions());
        assertEquals(9, b.partitions());
        assertEquals(3000, a.messages());
    }

    @Test
    void everyPresetParsesToItsShape() throws Exception {
        for (Preset p : Preset.values()) {
            Config c = Cli.parse("--preset", p.id());
            assertEquals(p.id(), c.preset());
            for (String flag : p.flags().keySet()) {
                assertTrue(Cli.FLAGS.stream().anyMatch(f -> f.name().equals(flag)), p.id() + ": " + flag);
            }
        }
        Config soak = Cli.parse("--preset", "soak");
        assertEquals(200, soak.partitions());
        assertEquals(1000, soak.popBatch());
        assertEquals(60, soak.dedupWindow());
        assertTrue(soak.retention());
        assertEquals(300, soak.duration());
        assertEquals(Config.AckMode.EXPLICIT, soak.ack());

        Config latency = Cli.parse("--preset", "latency");
        assertEquals(5000.0, latency.rate());
        assertEquals(100, latency.pushBatch());
        assertEquals(200, latency.partitions());
        assertEquals(1000, latency.popBatch());
        assertTrue(latency.wildcard());
        assertEquals(120, latency.duration());

        Config drain = Cli.parse("--preset", "drain");
        assertEquals(100_000, drain.messages());
        assertEquals(50, drain.partitions());
        assertEquals(8, drain.producers());
        assertEquals(8, drain.consumers());
        assertTrue(drain.phased());

        assertEquals(0, Cli.parse("--preset", "push-only").consumers());

        Config jobs = Cli.parse("--preset", "jobs");
        assertEquals(1, jobs.queues());
        assertEquals(32, jobs.partitions());
        assertEquals(1, jobs.producers());
        assertEquals(500.0, jobs.rate());
        assertEquals(128, jobs.pushBatch());
        assertTrue(jobs.arrivalBatches());
        assertEquals(8, jobs.consumers());
        assertEquals(8, jobs.popBatch());
        assertTrue(jobs.wildcard());
        assertEquals(1.0, jobs.workMs());
        assertEquals(Config.AckMode.EXPLICIT, jobs.ack());
        assertTrue(jobs.pickupLatency());
        Config peak = Cli.parse("--preset", "jobs", "--rate", "0", "--consumers", "32");
        assertFalse(peak.openLoop());
        assertEquals(32, peak.consumers());
    }

    @Test
    void workTimeIsPerMessage() throws Exception {
        assertEquals(0, Cli.parse().workNanos(8), "no work by default");
        assertEquals(8_000_000, Cli.parse("--work-ms", "1").workNanos(8));
        assertEquals(1_500_000, Cli.parse("--work-ms", "0.25").workNanos(6));
        assertFalse(Cli.parse().arrivalBatches());
        assertFalse(Cli.parse().pickupLatency());
        assertTrue(Cli.parse("--arrival-batches", "--pickup-latency").pickupLatency());
    }

    @Test
    void usageErrors() {
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--nope", "1"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("positional"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--partitions"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--partitions", "0"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--partitions", "ten"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--ack", "sometimes"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--mode", "kafka"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--preset", "nightly"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--url", "ftp://example"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--pg-url", "postgres://x"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--rate", "-1"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--work-ms", "-1"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--work-ms", "soon"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--verify", "maybe"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--pg-pids", "1,x"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--queue", "a/b"));
        assertThrows(Cli.UsageException.class, () -> Cli.parse("--mode", "baseline", "--groups", "2"));
    }

    @Test
    void helpListsEveryFlagAndPreset() throws Exception {
        assertTrue(Cli.parse("--help").help());
        assertTrue(Cli.parse("-h").help());
        String h = Cli.help();
        for (Cli.Flag f : Cli.FLAGS) {
            assertTrue(h.contains("--" + f.name()), f.name());
        }
        for (Preset p : Preset.values()) {
            assertTrue(h.contains(p.id()), p.id());
        }
    }

    @Test
    void mainExitCodes() {
        var sink = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        assertEquals(2, Main.run(new String[] {"--bogus"}, sink, sink));
        assertEquals(0, Main.run(new String[] {"--help"}, sink, sink));
    }
}
