package io.queen.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/image/smoke.sh} leaves nothing behind and touches no database but its own, whether the smoke
 * passes or fails: run with podman, psql and curl replaced by recording stand-ins (no image is built or run).
 */
class ImageSmokeScriptTest {
    record Run(int exit, String calls, String output) {
    }

    static Run smoke(Map<String, String> env) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "smoke-script-");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path fake = Path.of("src/test/resources/deploy/fake-tools.sh").toAbsolutePath();
        for (String tool : List.of("podman", "psql", "curl")) {
            Files.createSymbolicLink(bin.resolve(tool), fake);
        }
        Path tar = Files.writeString(dir.resolve("image.tar"), "not empty");
        Path log = dir.resolve("calls.log");
        ProcessBuilder pb = new ProcessBuilder("bash", "deploy/image/smoke.sh", tar.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile());
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("FAKE_LOG", log.toString());
        pb.environment().put("QUEEN_SMOKE_RUNTIME", "podman");
        pb.environment().put("PG_HOST", "db.example");
        pb.environment().putAll(env);
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "smoke.sh did not finish");
        return new Run(p.exitValue(), Files.readString(log), Files.readString(dir.resolve("out.log")));
    }

    static String createdDatabase(Run r) {
        Matcher m = Pattern.compile("CREATE DATABASE (\\S+)").matcher(r.calls());
        assertTrue(m.find(), r.calls());
        return m.group(1);
    }

    static void assertNothingLeft(Run r, boolean imageWasLoaded) {
        String db = createdDatabase(r);
        assertTrue(db.startsWith("queen_smoke_"), db);
        assertFalse(r.calls().contains("queen_image_smoke"), "no fixed database name: " + r.calls());
        assertTrue(r.calls().contains("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"), r.calls());
        assertEquals(1, r.calls().split("DROP DATABASE", -1).length - 1, "only its own database is dropped");
        Matcher name = Pattern.compile("run -d --name (\\S+)").matcher(r.calls());
        assertTrue(name.find(), r.calls());
        assertTrue(r.calls().contains("podman rm -f " + name.group(1)), "its container is removed: " + r.calls());
        assertEquals(imageWasLoaded, r.calls().contains("podman rmi -f sha256:0123abcd"), r.calls());
    }

    @Test
    void aPassingSmokeRemovesItsContainerImageAndDatabase() throws Exception {
        Run r = smoke(Map.of());
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("smoke: OK"), r.output());
        assertNothingLeft(r, true);
    }

    @Test
    void aFailingSmokeCleansUpTooAndKeepsAnImageThatWasThereBefore() throws Exception {
        Run r = smoke(Map.of("FAKE_PUSH", "{\"error\":\"boom\"}", "FAKE_IMAGES", "sha256:0123abcd"));
        assertNotEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("smoke: push failed"), r.output());
        assertNothingLeft(r, false);
    }

    @Test
    void twoRunsUseTwoDatabases() throws Exception {
        assertNotEquals(createdDatabase(smoke(Map.of())), createdDatabase(smoke(Map.of())));
    }
}
