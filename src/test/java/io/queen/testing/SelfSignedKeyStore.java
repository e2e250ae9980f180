package io.queen.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A fresh self-signed PKCS#12 key store (EC, CN=localhost, SAN localhost and 127.0.0.1, 2 days), made by keytool. */
public final class SelfSignedKeyStore {
    private SelfSignedKeyStore() {
    }

    public static Path create(String password) {
        try {
            Path dir = Files.createTempDirectory("queen-tls");
            Path ks = dir.resolve("broker.p12");
            String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
            Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "broker", "-keyalg", "EC",
                    "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1",
                    "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", password)
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IllegalStateException("keytool failed: " + out);
            }
            // deleteOnExit runs in reverse order of registration: the file first, then its (then empty) directory
            dir.toFile().deleteOnExit();
            ks.toFile().deleteOnExit();
            return ks;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
