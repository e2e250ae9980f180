package io.queen.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/image/check-archive.py}, which {@code deploy/image/build.sh} (and so {@code ./queen package}) runs on
 * the image tarball it wrote: it accepts a {@code docker save} archive holding the image the manifests name and
 * refuses one without that name, with a layer that does not match its config, or a file that is no archive.
 */
class ImageArchiveCheckTest {
    @TempDir
    Path dir;

    record Check(int exit, String output) {
    }

    Check check(Path archive, String name) throws Exception {
        Process p = new ProcessBuilder("python3", "deploy/image/check-archive.py", archive.toString(), name)
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "check-archive.py did not finish");
        return new Check(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    static void run(Path in, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /**
     * An image archive as Jib's docker-load stream writes it: one gzipped layer, its config naming the uncompressed
     * layer's digest ({@code layerDigest} when given instead), a manifest with {@code tags}.
     */
    Path archive(String layerDigest, String... tags) throws Exception {
        Path root = Files.createDirectories(dir.resolve("rootfs/deployments"));
        Files.writeString(root.resolve("app.txt"), "the broker");
        run(dir, "tar", "-cf", "layer.tar", "-C", "rootfs", ".");
        byte[] layer = Files.readAllBytes(dir.resolve("layer.tar"));
        String digest = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(layer));
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(dir.resolve("layer.tar.gz")))) {
            out.write(layer);
        }
        Files.writeString(dir.resolve("config.json"), """
                {"architecture":"amd64","os":"linux","config":{"User":"1001"},
                 "rootfs":{"type":"layers","diff_ids":["%s"]}}""".formatted(layerDigest != null ? layerDigest : digest));
        List<String> quoted = new ArrayList<>();
        for (String t : tags) {
            quoted.add("\"" + t + "\"");
        }
        Files.writeString(dir.resolve("manifest.json"),
                "[{\"Config\":\"config.json\",\"RepoTags\":" + quoted + ",\"Layers\":[\"layer.tar.gz\"]}]");
        run(dir, "tar", "-cf", "image.tar", "manifest.json", "config.json", "layer.tar.gz");
        return dir.resolve("image.tar");
    }

    @Test
    void anArchiveHoldingTheNamedImagePasses() throws Exception {
        Path tar = archive(null, "registry.example.com/team/queen-broker:1.0", "registry.example.com/team/queen-broker:latest");
        Check c = check(tar, "registry.example.com/team/queen-broker:1.0");
        assertEquals(0, c.exit(), c.output());
        assertTrue(c.output().contains("registry.example.com/team/queen-broker:1.0") && c.output().contains("1 layers"),
                c.output());
    }

    @Test
    void dockerHubNamesMatchWithOrWithoutTheirRegistry() throws Exception {
        Path tar = archive(null, "queen/queen-broker:0.1.0");
        assertEquals(0, check(tar, "docker.io/queen/queen-broker:0.1.0").exit());
    }

    @Test
    void anotherImageNameFails() throws Exception {
        Check c = check(archive(null, "queen/queen-broker:0.1.0"), "registry.example.com/team/queen-broker:1.0");
        assertEquals(1, c.exit(), c.output());
        assertTrue(c.output().contains("no image named registry.example.com/team/queen-broker:1.0"), c.output());
    }

    @Test
    void aLayerThatIsNotTheConfigsFails() throws Exception {
        Check c = check(archive("sha256:" + "0".repeat(64), "queen/queen-broker:0.1.0"), "queen/queen-broker:0.1.0");
        assertEquals(1, c.exit(), c.output());
        assertTrue(c.output().contains("layer layer.tar.gz hashes to sha256:"), c.output());
    }

    @Test
    void aFileThatIsNoArchiveFails() throws Exception {
        Path notTar = Files.writeString(dir.resolve("image.tar"), "Loaded image: written to target/queen-image.tar\n");
        Check c = check(notTar, "queen/queen-broker:0.1.0");
        assertEquals(1, c.exit(), c.output());
        assertTrue(c.output().contains("not a tar file"), c.output());
    }
}
