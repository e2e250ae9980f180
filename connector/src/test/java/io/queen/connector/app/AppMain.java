package io.queen.connector.app;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Entry point of a test application run as its own JVM (so that tests can kill it with SIGKILL): the first
 * argument lists the application bean classes (comma-separated); the configuration comes from {@code -D} system
 * properties. Runs until killed or until SIGTERM (which closes the container gracefully).
 */
public final class AppMain {

    private AppMain() {
    }

    public static void main(String[] args) throws Exception {
        String[] names = args[0].split(",");
        Class<?>[] beans = new Class<?>[names.length];
        for (int i = 0; i < names.length; i++) {
            beans[i] = Class.forName(names[i]);
        }
        Map<String, String> config = new HashMap<>();
        WeldApp app = WeldApp.start(config, beans);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                app.close();
            } catch (IllegalStateException alreadyClosedByWeldsOwnHook) {
                // Weld SE registers a shutdown hook of its own; whichever runs first stops the application.
            }
            done.countDown();
        }));
        System.out.println("APP STARTED");
        done.await();
    }
}
