package io.queen.kafka.transport;

import io.queen.auth.Caller;
import io.queen.auth.TokenCallers;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.jboss.logging.Logger;

/**
 * SaslHandshake (v1: the authentication bytes then travel in SaslAuthenticate requests; v0: as raw size-prefixed
 * frames, Kafka's framing before SaslAuthenticate, which kafka-python still uses) and SaslAuthenticate with
 * the broker's JWTs: {@code PLAIN} takes the token as the password (the user name is not used), {@code OAUTHBEARER}
 * the token its client sends (RFC 7628). A valid token gives the connection the tenant, subject and role the same
 * token gives an HTTP request. With authentication off, any credentials are accepted and change nothing (as a
 * token on an HTTP request then). The session lifetime answered is 0: a connection stays authenticated until it
 * closes. Stateless apart from the verified-token cache; thread-safe.
 */
@ApplicationScoped
class SaslAuthenticator {
    static final List<String> MECHANISMS = List.of("PLAIN", "OAUTHBEARER");
    private static final Logger LOG = Logger.getLogger(SaslAuthenticator.class);

    private final TokenCallers tokens;

    SaslAuthenticator(TokenCallers tokens) {
        this.tokens = tokens;
    }

    boolean required() {
        return tokens.required();
    }

    /**
     * Chooses the mechanism. Version 0 (kafka-python, older librdkafka) means the client's SASL tokens follow as
     * raw size-prefixed frames, not SaslAuthenticate requests.
     */
    SaslHandshakeResponseData handshake(KafkaSession session, short version, SaslHandshakeRequestData request) {
        SaslHandshakeResponseData out = new SaslHandshakeResponseData().setMechanisms(MECHANISMS);
        if (!MECHANISMS.contains(request.mechanism())) {
            return out.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        }
        session.mechanism(request.mechanism());
        if (version == 0) {
            session.rawTokenNext();
        }
        return out.setErrorCode(Errors.NONE.code());
    }

    SaslAuthenticateResponseData authenticate(KafkaSession session, SaslAuthenticateRequestData request) {
        SaslAuthenticateResponseData out = new SaslAuthenticateResponseData().setAuthBytes(new byte[0]);
        String mechanism = session.mechanism();
        if (mechanism == null) {
            return out.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("SaslAuthenticate before SaslHandshake");
        }
        String token = "PLAIN".equals(mechanism) ? plainPassword(request.authBytes()) : bearer(request.authBytes());
        if (token == null || token.isEmpty()) {
            return out.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                    .setErrorMessage("malformed " + mechanism + " authentication");
        }
        if (!tokens.required()) {
            return out.setErrorCode(Errors.NONE.code());
        }
        try {
            Caller caller = tokens.of(token);
            session.authenticate(caller);
            return out.setErrorCode(Errors.NONE.code());
        } catch (ParseException e) {
            LOG.debugf("kafka SASL %s from %s refused: invalid or expired token", mechanism, session.clientHost());
            return out.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                    .setErrorMessage("Invalid or expired token");
        }
    }

    /** PLAIN: {@code authzid NUL authcid NUL password}; the password, or null when malformed. */
    static String plainPassword(byte[] auth) {
        String s = new String(auth, StandardCharsets.UTF_8);
        int first = s.indexOf('\0');
        int second = first < 0 ? -1 : s.indexOf('\0', first + 1);
        return second < 0 ? null : s.substring(second + 1);
    }

    /** OAUTHBEARER client first message: {@code gs2-header ^A auth=Bearer <token> ^A ... ^A^A}; null when malformed. */
    static String bearer(byte[] auth) {
        String s = new String(auth, StandardCharsets.UTF_8);
        for (String part : s.split("\u0001")) {
            if (part.regionMatches(true, 0, "auth=", 0, 5)) {
                String v = part.substring(5).strip();
                if (v.regionMatches(true, 0, "Bearer ", 0, 7)) {
                    return v.substring(7).strip();
                }
            }
        }
        return null;
    }
}
