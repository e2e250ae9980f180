package io.queen.kafka;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs one of Apache Kafka's command-line tools (kafka-tools: {@code TopicCommand}, {@code LogDirsCommand},
 * {@code TransactionsCommand}, {@code ConsumerGroupCommand}) in this JVM through its {@code main}, as the shell
 * script would: what it prints to standard out and err, and its exit status: the first one it exits with (0 when
 * it returns without). The exit is recorded, not carried out, and the tool goes on: some tools exit from a
 * {@code finally} block of code whose caller then exits again. Not thread-safe: it swaps the JVM's standard
 * streams and Kafka's exit procedure while the tool runs.
 */
public final class KafkaTool {
    /** What a run printed and how it ended. */
    public record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nout:\n" + out + "\nerr:\n" + err;
        }
    }

    /** A tool's {@code main}. */
    @FunctionalInterface
    public interface Main {
        void main(String[] args) throws Exception;
    }

    private KafkaTool() {
    }

    public static synchronized Run run(Main main, String... args) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        AtomicInteger exit = new AtomicInteger(Integer.MIN_VALUE);
        Exit.setExitProcedure((status, message) -> exit.compareAndSet(Integer.MIN_VALUE, status));
        try (PrintStream po = new PrintStream(o, true, StandardCharsets.UTF_8);
                PrintStream pe = new PrintStream(e, true, StandardCharsets.UTF_8)) {
            System.setOut(po);
            System.setErr(pe);
            main.main(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
            Exit.resetExitProcedure();
        }
        return new Run(exit.get() == Integer.MIN_VALUE ? 0 : exit.get(), o.toString(StandardCharsets.UTF_8),
                e.toString(StandardCharsets.UTF_8));
    }
}
