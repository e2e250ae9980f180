package io.queen.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * HTTP/1.1 over a plain socket, one request per connection: sends exactly the target and bytes given (a URI
 * no URI class would accept, any Content-Type or none), for tests of what the broker does with them. The body is
 * written while the answer is read: a broker that refuses a body early (413, then the connection closed) is seen
 * answering, not as a broken pipe. Stateless, thread-safe.
 */
public final class RawHttp {
    private RawHttp() {
    }

    public record Reply(int status, String head, String body) {
    }

    /**
     * Sends a request's head alone ({@code requestLine}, a Host header, then {@code headers}; the body it may
     * declare never follows) and returns the head of the first answer: a {@code 100 Continue} when the broker asks
     * for the body ({@code Expect: 100-continue}), else its final answer, read before the body would be.
     */
    public static String firstHead(int port, String requestLine, String... headers) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(30_000);
            StringBuilder head = new StringBuilder(requestLine).append("\r\nHost: 127.0.0.1\r\n");
            for (String h : headers) {
                head.append(h).append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder answer = new StringBuilder();
            int c;
            while (answer.indexOf("\r\n\r\n") < 0 && (c = in.read()) >= 0) {
                answer.append((char) c);
            }
            return answer.toString();
        }
    }

    /** {@code contentType} null sends none; {@code body} null sends no body and no Content-Length. */
    public static Reply send(int port, String method, String target, String contentType, byte[] body)
            throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(60_000);
            StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                    .append("Host: 127.0.0.1\r\nConnection: close\r\n");
            if (contentType != null) {
                head.append("Content-Type: ").append(contentType).append("\r\n");
            }
            if (body != null) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            CompletableFuture<IOException> writer = CompletableFuture.supplyAsync(() -> {
                try {
                    if (body != null) {
                        out.write(body);
                    }
                    out.flush();
                    return null;
                } catch (IOException refused) {
                    return refused;  // the broker closed the connection before taking the whole body
                }
            });
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            try {
                in.transferTo(all);
            } catch (IOException reset) {
                // a connection closed with body bytes unread ends in a reset: what arrived before it is the answer
                if (all.size() == 0) {
                    IOException write = writer.join();
                    throw write != null ? write : reset;
                }
            }
            writer.join();
            String text = all.toString(StandardCharsets.UTF_8);
            int sp = text.indexOf(' ');
            if (!text.startsWith("HTTP/1.") || sp < 0 || text.length() < sp + 4) {
                throw new IOException("not an HTTP answer to " + method + " " + target + ": " + text);
            }
            int status = Integer.parseInt(text.substring(sp + 1, sp + 4));
            int end = text.indexOf("\r\n\r\n");
            return new Reply(status, end < 0 ? text : text.substring(0, end), end < 0 ? "" : text.substring(end + 4));
        }
    }
}
