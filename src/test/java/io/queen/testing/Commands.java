package io.queen.testing;

import java.io.IOException;

/** Whether a command the tests run (curl, jq, openssl) is installed. Stateless. */
public final class Commands {
    private Commands() {
    }

    public static boolean onPath(String command) {
        try {
            return new ProcessBuilder("bash", "-c", "command -v " + command).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
