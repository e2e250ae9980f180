package io.queen.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@code --token}: every broker request carries {@code Authorization: Bearer <token>}; none without it. */
class TokenTest {

    /** The Authorization header of the driver's first request (its health check, answered 503 here). */
    static String firstAuthorization(String... args) throws Exception {
        AtomicReference<String> seen = new AtomicReference<>("<no request>");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            seen.compareAndSet("<no request>", ex.getRequestHeaders().getFirst("Authorization"));
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        server.start();
        try {
            String[] all = new String[args.length + 2];
            all[0] = "--url";
            all[1] = "http://127.0.0.1:" + server.getAddress().getPort();
            System.arraycopy(args, 0, all, 2, args.length);
            try (QueenDriver d = new QueenDriver(Cli.parse(all), "run1")) {
                assertThrows(Exception.class, () -> d.setup(List.of(new Driver.Target("q", "p"))));
            }
        } finally {
            server.stop(0);
        }
        return seen.get();
    }

    @Test
    void theTokenIsSentAsBearer() throws Exception {
        assertEquals("Bearer abc.def.ghi", firstAuthorization("--token", "abc.def.ghi"));
        assertEquals("abc.def.ghi", Cli.parse("--token", "abc.def.ghi").token());
    }

    @Test
    void noTokenNoHeader() throws Exception {
        if (System.getenv("QUEEN_BENCH_TOKEN") == null) {
            assertNull(firstAuthorization());
            assertNull(Cli.parse().token());
        }
    }
}
