package io.queen.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of one port that can swallow the answers: while {@link #dropAnswers} is on, what the server
 * sends back is read and thrown away while requests still go through, so the server does work whose answers the
 * client never sees (the window a crash between a commit and its answer opens). {@link #cut} closes every
 * connection. Thread-safe; one platform thread per direction and connection.
 */
public final class LossyProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean dropAnswers;

    public LossyProxy(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("lossy-proxy-accept").start(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    public void dropAnswers(boolean on) {
        dropAnswers = on;
    }

    /** Closes every proxied connection (the proxy keeps accepting new ones). */
    public void cut() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        sockets.clear();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream;
                try {
                    upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                } catch (IOException e) {
                    client.close();
                    continue;
                }
                sockets.add(client);
                sockets.add(upstream);
                Thread.ofPlatform().daemon().start(() -> pipe(client, upstream, false));
                Thread.ofPlatform().daemon().start(() -> pipe(upstream, client, true));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pipe(Socket from, Socket to, boolean answers) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (!(answers && dropAnswers)) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException e) {
                // closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        cut();
        server.close();
    }
}
