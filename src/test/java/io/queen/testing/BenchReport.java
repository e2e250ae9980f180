package io.queen.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines a bench reports: each printed with the bench's tag and the whole report rewritten to
 * {@code target/<name>.txt} after every line, so a bench cut short still leaves what it measured. Not thread-safe
 * (a bench reports from its test thread).
 */
public final class BenchReport {
    private final String name;
    private final List<String> lines = new ArrayList<>();

    public BenchReport(String name) {
        this.name = name;
    }

    public void add(String line) {
        System.out.println("[" + name + "] " + line);
        lines.add(line);
        try {
            Files.write(Path.of("target", name + ".txt"), lines);
        } catch (IOException ignored) {
            // stdout has it
        }
    }
}
