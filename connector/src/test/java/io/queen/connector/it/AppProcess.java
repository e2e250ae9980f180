package io.queen.connector.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.queen.connector.app.AppMain;
import io.queen.connector.app.Recorder;

/**
 * A test application in its own JVM ({@link AppMain} with the test class path), so that a test can kill it with
 * SIGKILL mid-stream. What it processes is appended to a file ({@code app.out}) that survives the kill.
 * Not thread-safe.
 */
public final class AppProcess implements AutoCloseable {

    private final Process process;
    private final Path out;
    private final Path log;

    private AppProcess(Process process, Path out, Path log) {
        this.process = process;
        this.out = out;
        this.log = log;
    }

    public static AppProcess start(String name, Map<String, String> config, Class<?>... beans) {
        return start(name, config, List.of(), beans);
    }

    /**
     * As {@link #start(String, Map, Class...)}, with the test class path minus every jar whose file name starts with
     * one of {@code withoutJars} (an application that lacks an optional library).
     */
    public static AppProcess start(String name, Map<String, String> config, List<String> withoutJars,
            Class<?>... beans) {
        try {
            Path dir = Path.of("target", "apps");
            Files.createDirectories(dir);
            Path out = dir.resolve(name + ".out");
            Path log = dir.resolve(name + ".log");
            Files.deleteIfExists(out);
            Files.createFile(out);
            List<String> cmd = new ArrayList<>();
            cmd.add(Broker.javaExecutable());
            cmd.add("-Xmx256m");
            cmd.add("-cp");
            cmd.add(classpath(withoutJars));
            config.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
            cmd.add("-Dapp.out=" + out.toAbsolutePath());
            cmd.add("-Dapp.instance=" + name);
            cmd.add(AppMain.class.getName());
            cmd.add(java.util.Arrays.stream(beans).map(Class::getName).collect(Collectors.joining(",")));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            AppProcess app = new AppProcess(p, out, log);
            app.awaitStarted();
            return app;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String classpath(List<String> withoutJars) throws IOException {
        String file = System.getProperty("queen.test.classpath.file", "target/test-classpath.txt");
        String deps = java.util.Arrays.stream(Files.readString(Path.of(file)).trim().split(File.pathSeparator))
                .filter(jar -> withoutJars.stream().noneMatch(Path.of(jar).getFileName().toString()::startsWith))
                .collect(Collectors.joining(File.pathSeparator));
        return new File("target/test-classes").getAbsolutePath() + File.pathSeparator
                + new File("target/classes").getAbsolutePath() + File.pathSeparator + deps;
    }

    private void awaitStarted() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.readString(log).contains("APP STARTED")) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("application exited at start:\n" + Files.readString(log));
            }
            Broker.sleep(50);
        }
        throw new IllegalStateException("application did not start:\n" + Files.readString(log));
    }

    /** What this application recorded so far (also after it was killed). */
    public List<Recorder.Entry> entries() {
        try {
            return Files.readAllLines(out).stream().filter(l -> !l.isBlank()).map(Recorder.Entry::parse).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** SIGKILL: no shutdown hook, no ack flush, no lease release. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    kill();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
