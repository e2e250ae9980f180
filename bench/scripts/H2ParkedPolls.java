import java.net.*; import java.net.http.*; import java.time.*; import java.util.*; import java.util.concurrent.*;
/** usage: java H2ParkedPolls.java <port> <connections> <streamsPerConnection> <addresses(comma)> : parks long polls over h2c, then
 * measures /health and /push latency from 127.0.0.250 while they wait, and how many polls were refused at once. */
public class H2ParkedPolls {
    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[0]), conns = Integer.parseInt(a[1]), streams = Integer.parseInt(a[2]);
        String[] addrs = a[3].split(",");
        String base = "http://127.0.0.1:" + port;
        List<CompletableFuture<HttpResponse<Void>>> polls = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < conns; c++) {
            HttpClient cl = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .localAddress(InetAddress.getByName(addrs[c % addrs.length])).build();
            cl.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(), HttpResponse.BodyHandlers.discarding());
            for (int s = 0; s < streams; s++) {
                polls.add(cl.sendAsync(HttpRequest.newBuilder(URI.create(base + "/api/v1/pop/queue/h2atk/partition/p?wait=true&timeout=60000"))
                    .timeout(Duration.ofSeconds(90)).build(), HttpResponse.BodyHandlers.discarding()));
            }
        }
        Thread.sleep(8000);
        long done = polls.stream().filter(CompletableFuture::isDone).count();
        long failed = polls.stream().filter(f -> f.isCompletedExceptionally()).count();
        System.out.printf("sent %d long polls on %d h2c connections from %s in %.1f s: %d answered at once (%d errors), %d waiting%n",
            polls.size(), conns, String.join(",", addrs), (System.nanoTime() - t0) / 1e9, done, failed, polls.size() - done);
        HttpClient other = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .localAddress(InetAddress.getByName("127.0.0.250")).build();
        for (int i = 0; i < 5; i++) {
            long h0 = System.nanoTime();
            int hs = other.send(HttpRequest.newBuilder(URI.create(base + "/health")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            long h = (System.nanoTime() - h0) / 1_000_000;
            long p0 = System.nanoTime();
            int ps = other.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/push")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"items\":[{\"queue\":\"probe\",\"payload\":{\"n\":1}}]}")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
            long p = (System.nanoTime() - p0) / 1_000_000;
            System.out.printf("from 127.0.0.250: health %d in %d ms, push %d in %d ms%n", hs, h, ps, p);
            Thread.sleep(1000);
        }
        System.exit(0);
    }
}
