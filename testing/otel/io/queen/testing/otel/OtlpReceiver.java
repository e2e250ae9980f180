package io.queen.testing.otel;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

/**
 * An OTLP/HTTP trace receiver ({@code POST /v1/traces}, protobuf, gzip or not) on a free local port: keeps every
 * span it was sent, with the {@code service.name} of its resource, and prints a trace as a tree. Shared by the tests
 * that follow one trace across an application and a broker process (testing/otel, compiled into their tests).
 * Thread-safe (a concurrent list).
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One received span; ids in lowercase hex, {@code parentSpanId} empty for a root span. */
    public record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name,
            String kind) {
    }

    private final HttpServer server;
    /** Every span received so far. */
    public final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/traces", this::export);
        server.start();
    }

    /** The base URL an OTLP/HTTP exporter is given ({@code /v1/traces} is appended by it). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void export(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body.readAllBytes());
            HexFormat hex = HexFormat.of();
            for (ResourceSpans rs : request.getResourceSpansList()) {
                String service = rs.getResource().getAttributesList().stream()
                        .filter(a -> a.getKey().equals("service.name")).map(KeyValue::getValue)
                        .map(v -> v.getStringValue()).findFirst().orElse("?");
                for (ScopeSpans ss : rs.getScopeSpansList()) {
                    for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
                        spans.add(new ReceivedSpan(service, hex.formatHex(s.getTraceId().toByteArray()),
                                hex.formatHex(s.getSpanId().toByteArray()),
                                hex.formatHex(s.getParentSpanId().toByteArray()), s.getName(),
                                s.getKind().name().replace("SPAN_KIND_", "")));
                    }
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** The spans of one trace as an indented tree: name, kind, service, span id, parent span id. */
    public static String tree(List<ReceivedSpan> trace) {
        Set<String> ids = trace.stream().map(ReceivedSpan::spanId).collect(Collectors.toSet());
        StringBuilder out = new StringBuilder();
        trace.stream().filter(s -> !ids.contains(s.parentSpanId())).forEach(root -> print(trace, root, 0, out));
        return out.toString();
    }

    private static void print(List<ReceivedSpan> trace, ReceivedSpan span, int depth, StringBuilder out) {
        out.append("  ".repeat(depth)).append(span.name()).append(" [").append(span.kind()).append(", ")
                .append(span.service()).append("] span=").append(span.spanId()).append(" parent=")
                .append(span.parentSpanId().isEmpty() ? "-" : span.parentSpanId()).append('\n');
        trace.stream().filter(s -> s.parentSpanId().equals(span.spanId()))
                .forEach(child -> print(trace, child, depth + 1, out));
    }
}
