package io.queen.kafka.transport;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.queen.tracing.BrokerTracing;
import java.util.EnumSet;
import java.util.Set;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.queen.shutdown.AdmissionGate;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import io.queen.auth.Access;
import io.queen.auth.Role;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.jboss.logging.Logger;

/**
 * Turns one request frame into its answer frame: parses the header and body with the kafka-clients classes, runs
 * the API's handler on a virtual thread (handlers may block on the database, never on an event loop) and writes
 * the answer, or the API's own error answer when the handler fails.
 *
 * <p>What is not served gets an error a client understands, never a dropped connection: a known API key that is
 * not served, or a version outside the served range, is answered with that API's error response carrying
 * UNSUPPORTED_VERSION; an ApiVersions request of an unknown version, and a request with an unknown API key, with
 * ApiVersions v0 listing what is served. Only a frame that cannot be parsed closes its connection, and, while
 * authentication is on, any request but ApiVersions and the SASL exchange before the client authenticated (its
 * body is not even parsed; Apache Kafka closes such a connection too). While the broker
 * drains, a new request closes its connection (the client reconnects to another broker); requests already running
 * finish and are counted by the {@link AdmissionGate}. Thread-safe (stateless apart from the immutable table).
 */
final class KafkaDispatcher {
    private static final Logger LOG = Logger.getLogger(KafkaDispatcher.class);

    private final KafkaApis apis;
    private final AdmissionGate gate;
    private final SaslAuthenticator sasl;
    private final BrokerTracing tracing;
    private final ExecutorService workers = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("queen-kafka-", 0).factory());

    /** The calls that carry or hand out records, or settle them: one span each when tracing is on. */
    private static final Set<ApiKeys> TRACED = EnumSet.of(ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.OFFSET_COMMIT,
            ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.END_TXN, ApiKeys.SHARE_FETCH, ApiKeys.SHARE_ACKNOWLEDGE);
    private static final AttributeKey<String> CLIENT_ID = AttributeKey.stringKey("messaging.client.id");

    private final KafkaRequestMeters meters;

    KafkaDispatcher(KafkaApis apis, AdmissionGate gate, SaslAuthenticator sasl, KafkaRequestMeters meters,
            BrokerTracing tracing) {
        this.meters = meters;
        this.tracing = tracing;
        this.apis = apis;
        this.gate = gate;
        this.sasl = sasl;
    }

    KafkaRequestMeters meters() {
        return meters;
    }

    /**
     * The answer to {@code buf} (a request without its size prefix, from position 0; its bytes stay the request's):
     * a future of the whole response frame, or of null when the request expects none (produce with acks=0).
     */
    CompletableFuture<ByteBuf> dispatch(KafkaSession session, ByteBuffer buf) throws MalformedRequest {
        short keyId = buf.getShort(0);
        short version = buf.getShort(2);
        int correlationId = buf.getInt(4);
        if (!ApiKeys.hasId(keyId) || (keyId == ApiKeys.API_VERSIONS.id && !served(ApiKeys.API_VERSIONS, version))) {
            return CompletableFuture.completedFuture(KafkaWire.unsupportedVersion(correlationId, apis));
        }
        ApiKeys key = ApiKeys.forId(keyId);
        if (sasl.required() && !session.authenticated() && key != ApiKeys.API_VERSIONS
                && key != ApiKeys.SASL_HANDSHAKE && key != ApiKeys.SASL_AUTHENTICATE) {
            // nothing is parsed for a client that has not authenticated; Apache Kafka closes such a connection too
            throw new MalformedRequest(key + " before SASL authentication");
        }
        if (!key.isVersionSupported(version)) {
            // the classes cannot even read it, so there is no answer the client could read either
            throw new MalformedRequest(key + " v" + version + " is outside every version this broker can read");
        }
        RequestHeader header;
        AbstractRequest request;
        try {
            header = RequestHeader.parse(buf);
            request = AbstractRequest.parseRequest(key, version, new ByteBufferAccessor(buf)).request;
        } catch (RuntimeException e) {
            throw new MalformedRequest("unreadable " + key + " v" + version + " request");
        }
        if (!gate.enter()) {
            throw new MalformedRequest("the broker is shutting down");
        }
        try {
            return answer(session, key, version, correlationId, header, request);
        } catch (RuntimeException e) {
            // the answer's future exits the gate; a failure before it exists must do so here
            gate.exit();
            throw new MalformedRequest(key + " v" + version + " request failed: " + e);
        }
    }

    private CompletableFuture<ByteBuf> answer(KafkaSession session, ApiKeys key, short version,
            int correlationId, RequestHeader header, AbstractRequest request) {
        long startNanos = System.nanoTime();
        boolean noAnswer = key == ApiKeys.PRODUCE && ((ProduceRequestData) request.data()).acks() == 0;
        short headerVersion = header.apiKey().responseHeaderVersion(version);
        KafkaApis.Entry entry = apis.entry(key);
        CompletableFuture<ApiMessage> body;
        ApiException refusal = entry == null || !entry.supports(version)
                ? new UnsupportedVersionException(key + " v" + version + " is not served") : refusal(session, key);
        if (refusal != null) {
            // answered inside the future below, which exits the admission gate whatever happens
            body = CompletableFuture.failedFuture(refusal);
        } else if (key == ApiKeys.SASL_HANDSHAKE) {
            body = CompletableFuture.completedFuture(sasl.handshake(session, version,
                    (SaslHandshakeRequestData) request.data()));
        } else if (key == ApiKeys.SASL_AUTHENTICATE) {
            SaslAuthenticateRequestData auth = (SaslAuthenticateRequestData) request.data();
            // token verification may fetch keys (JWKS): off the event loop; the connection's next request waits
            // for it anyway (clients send nothing else before the answer)
            body = CompletableFuture.supplyAsync(() -> sasl.authenticate(session, auth), workers);
        } else {
            KafkaCaller caller = session.caller(header.clientId());
            Span span = tracing.enabled() && TRACED.contains(key)
                    ? tracing.start("kafka " + key.name, SpanKind.SERVER, null) : Span.getInvalid();
            if (span.isRecording()) {
                span.setAttribute(CLIENT_ID, header.clientId());
            }
            CompletableFuture<CompletionStage<ApiMessage>> called;
            if (entry.batch() != null) {
                // not current while the batch runs (it serves other requests too); ended with this request's answer
                called = CompletableFuture.completedFuture(session.coalesced(key,
                        k -> new CoalescedCalls(entry.batch(), workers)).submit(
                        new KafkaCall<>(caller, version, request.data())));
            } else if (entry.ordered()) {
                CompletableFuture<CompletionStage<ApiMessage>> next = new CompletableFuture<>();
                session.chainOrdered(next).whenComplete((x, e) -> workers.execute(() ->
                        next.complete(run(entry, caller, version, request, span))));
                called = next;
            } else {
                called = CompletableFuture.supplyAsync(() -> run(entry, caller, version, request, span), workers);
            }
            body = called.thenCompose(s -> s);
            if (span.isRecording()) {
                body = body.whenComplete((data, failure) -> {
                    if (failure != null) {
                        BrokerTracing.failed(span, failure);
                    }
                    span.end();
                });
            }
        }
        return body.handle((data, failure) -> {
            meters.answered(key, System.nanoTime() - startNanos, failure != null);
            try {
                ApiMessage out = data;
                if (failure != null) {
                    out = errorAnswer(key, request, failure);
                }
                if (noAnswer || out == null) {
                    return null;
                }
                try {
                    return KafkaWire.response(correlationId, headerVersion, out, version);
                } catch (RuntimeException e) {
                    // an answer this version cannot carry is a broker bug: the client gets an error, not silence
                    LOG.errorf(e, "kafka %s v%d answer could not be written", key, version);
                    return KafkaWire.response(correlationId, headerVersion, errorAnswer(key, request,
                            new UnknownServerException("the answer could not be written")),
                            version);
                }
            } finally {
                gate.exit();
            }
        });
    }

    /**
     * The answer to a raw SASL token (the frame after a SaslHandshake v0): the server's token, size-prefixed, or a
     * failed future when the token is refused (the connection is then closed: v0 has no way to carry an error).
     */
    CompletableFuture<ByteBuf> saslToken(KafkaSession session, byte[] token) {
        return CompletableFuture.supplyAsync(() -> {
            SaslAuthenticateResponseData r = sasl.authenticate(session,
                    new SaslAuthenticateRequestData().setAuthBytes(token));
            if (r.errorCode() != Errors.NONE.code()) {
                throw new SaslAuthenticationException("SASL " + session.mechanism() + " refused: "
                        + r.errorMessage());
            }
            byte[] out = r.authBytes();
            return Unpooled.wrappedBuffer(ByteBuffer.allocate(4 + out.length).putInt(out.length).put(out).flip());
        }, workers);
    }

    /** Why this connection may not call {@code key} (authentication on): null when it may. */
    private ApiException refusal(KafkaSession session, ApiKeys key) {
        if (!sasl.required()) {
            return null;
        }
        Access.Level level = KafkaApis.level(key);
        if (key == ApiKeys.API_VERSIONS || key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE) {
            return null;
        }
        Role role = session.caller("").role();
        if (level == Access.Level.PUBLIC || (role != null && role.allows(level))) {
            return null;
        }
        if (key == ApiKeys.ADD_PARTITIONS_TO_TXN || key == ApiKeys.ADD_OFFSETS_TO_TXN || key == ApiKeys.END_TXN
                || key == ApiKeys.TXN_OFFSET_COMMIT) {
            return new TransactionalIdAuthorizationException("Insufficient permissions");
        }
        // CreatePartitions is ALTER on the topic for Apache Kafka, so it answers for the topic
        return (level == Access.Level.ADMIN && key != ApiKeys.CREATE_PARTITIONS) || key == ApiKeys.INIT_PRODUCER_ID
                ? new ClusterAuthorizationException("Insufficient permissions")
                : new TopicAuthorizationException("Insufficient permissions");
    }

    private boolean served(ApiKeys key, short version) {
        KafkaApis.Entry e = apis.entry(key);
        return e != null && e.supports(version);
    }

    @SuppressWarnings("unchecked")
    private static CompletionStage<ApiMessage> run(KafkaApis.Entry entry, KafkaCaller caller, short version,
            AbstractRequest request, Span span) {
        // current while the handler runs, so a produce can link the records' own traces to it
        try (Scope ignored = span.makeCurrent()) {
            return (CompletionStage<ApiMessage>) entry.handler().handle(caller, version, request.data());
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static ApiMessage errorAnswer(ApiKeys key, AbstractRequest request, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (!(cause instanceof ApiException)) {
            LOG.errorf(cause, "kafka %s failed", key);
        }
        if (key == ApiKeys.PRODUCE) {
            // kafka-clients' own error answer reads every partition's record set, which may be null
            return produceError((ProduceRequestData) request.data(), cause);
        }
        AbstractResponse response = request.getErrorResponse(0, cause);
        return response == null ? null : response.data();
    }

    /** Every partition of {@code request} answered with {@code failure}'s error; the records are not read. */
    static ProduceResponseData produceError(ProduceRequestData request, Throwable failure) {
        ApiError error = ApiError.fromThrowable(failure);
        ProduceResponseData out = new ProduceResponseData();
        for (ProduceRequestData.TopicProduceData td : request.topicData()) {
            ProduceResponseData.TopicProduceResponse tr = new ProduceResponseData.TopicProduceResponse()
                    .setName(td.name()).setTopicId(td.topicId());
            for (ProduceRequestData.PartitionProduceData pd : td.partitionData()) {
                tr.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(pd.index())
                        .setBaseOffset(-1).setErrorCode(error.error().code()).setErrorMessage(error.message()));
            }
            out.responses().add(tr);
        }
        return out;
    }
}
