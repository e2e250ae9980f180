package io.queen.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command line tool run to its end (kcat, Python with a Kafka client): its exit code and its merged output. */
public record Command(int exit, String out) {

    /** Runs {@code command} with {@code stdin} (null: none) and waits at most two minutes for it. */
    public static Command run(String stdin, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished");
        return new Command(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
