package io.queen.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The verification rules of each key kind, with smallrye-jwt's parser outside the broker. */
class TokenVerifierTest {
    static final String SECRET = "unit-secret-0123456789abcdef-0123456789abcdef-0123456789abcdef-0123456789";

    static TokenVerifier verifier(Optional<String> secret, Optional<String> pem, Optional<String> issuer,
            Optional<String> audience) {
        return new TokenVerifier(new AuthUnitTest.Cfg(true, secret, pem, Optional.empty(), issuer, audience, "tenant",
                false), new DefaultJWTParser());
    }

    static TokenVerifier hmac() {
        return verifier(Optional.of(SECRET), Optional.empty(), Optional.empty(), Optional.empty());
    }

    static JwtClaimsBuilder claims() {
        return Jwt.claims().subject("s1").claim("role", "read-write").issuedAt(Instant.now())
                .expiresAt(Instant.now().plusSeconds(600));
    }

    static String pem(PublicKey key) {
        return "-----BEGIN PUBLIC KEY-----\r\n" + Base64.getMimeEncoder().encodeToString(key.getEncoded())
                + "\r\n-----END PUBLIC KEY-----\r\n";
    }

    /** A token signed by hand: the builder always adds exp, this one need not carry it. */
    static String handSigned(String payloadJson, String secret) throws Exception {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String signingInput = b64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8))
                + "." + b64.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return signingInput + "." + b64.encodeToString(mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void everyHmacSizeWithTheSecret() throws Exception {
        for (SignatureAlgorithm alg : new SignatureAlgorithm[] {SignatureAlgorithm.HS256, SignatureAlgorithm.HS384,
                SignatureAlgorithm.HS512}) {
            String token = claims().jws().algorithm(alg).signWithSecret(SECRET);
            assertEquals("s1", hmac().verify(token).getSubject(), alg.name());
        }
    }

    @Test
    void aTokenIssuedInTheFutureIsRefusedBeyondTheClockSkew() throws Exception {
        Instant now = Instant.now();
        String dayAhead = Jwt.claims().subject("s1").claim("role", "admin").issuedAt(now.plusSeconds(86_400))
                .expiresAt(now.plusSeconds(2 * 86_400)).signWithSecret(SECRET);
        assertThrows(ParseException.class, () -> hmac().verify(dayAhead));
        // within the 60 s allowance: a clock a little ahead of the broker's
        String slightlyAhead = Jwt.claims().subject("s2").claim("role", "admin").issuedAt(now.plusSeconds(20))
                .expiresAt(now.plusSeconds(600)).signWithSecret(SECRET);
        assertEquals("s2", hmac().verify(slightlyAhead).getSubject());
    }

    @Test
    void expIsRequiredButIssuerAndAudienceOnlyWhenConfigured() throws Exception {
        long now = Instant.now().getEpochSecond();
        String minimal = "{\"sub\":\"c1\",\"role\":\"admin\",\"iat\":" + now + ",\"exp\":" + (now + 600) + "}";
        assertEquals("c1", hmac().verify(handSigned(minimal, SECRET)).getSubject());
        String noExp = "{\"sub\":\"c1\",\"role\":\"admin\",\"iat\":" + now + "}";
        assertThrows(ParseException.class, () -> hmac().verify(handSigned(noExp, SECRET)));

        TokenVerifier strict = verifier(Optional.of(SECRET), Optional.empty(), Optional.of("https://idp.example"),
                Optional.of("queen"));
        assertThrows(ParseException.class, () -> strict.verify(claims().signWithSecret(SECRET)));
        assertThrows(ParseException.class,
                () -> strict.verify(claims().issuer("https://other.example").audience("queen").signWithSecret(SECRET)));
        assertEquals("s1", strict.verify(claims().issuer("https://idp.example").audience("queen")
                .signWithSecret(SECRET)).getSubject());
    }

    @Test
    void aShortSecretIsAccepted() throws Exception {
        TokenVerifier shortKey = verifier(Optional.of("secret"), Optional.empty(), Optional.empty(), Optional.empty());
        long now = Instant.now().getEpochSecond();
        assertEquals("c2", shortKey.verify(handSigned("{\"sub\":\"c2\",\"iat\":" + now + ",\"exp\":" + (now + 60) + "}",
                "secret"))
                .getSubject());
    }

    @Test
    void rsaAndEcPublicKeysInPem() throws Exception {
        KeyPairGenerator rsaGen = KeyPairGenerator.getInstance("RSA");
        rsaGen.initialize(2048);
        KeyPair rsa = rsaGen.generateKeyPair();
        TokenVerifier rs = verifier(Optional.empty(), Optional.of(pem(rsa.getPublic())), Optional.empty(),
                Optional.empty());
        assertEquals("s1", rs.verify(claims().sign(rsa.getPrivate())).getSubject());
        // an HS256 token keyed with the public key's text (algorithm confusion) is refused
        assertThrows(ParseException.class, () -> rs.verify(claims().signWithSecret(pem(rsa.getPublic()))));

        KeyPairGenerator ecGen = KeyPairGenerator.getInstance("EC");
        ecGen.initialize(256);
        KeyPair ec = ecGen.generateKeyPair();
        TokenVerifier es = verifier(Optional.empty(), Optional.of(pem(ec.getPublic())), Optional.empty(),
                Optional.empty());
        assertEquals("s1", es.verify(claims().jws().algorithm(SignatureAlgorithm.ES256).sign(ec.getPrivate()))
                .getSubject());
        assertThrows(ParseException.class, () -> es.verify(claims().sign(rsa.getPrivate())));

        KeyPair ed = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        // as an environment variable often carries it: one line, the line breaks written as \n
        String oneLine = pem(ed.getPublic()).replace("\r\n", "\\n");
        TokenVerifier eddsa = verifier(Optional.empty(), Optional.of(oneLine), Optional.empty(), Optional.empty());
        assertEquals("s1", eddsa.verify(claims().jws().algorithm(SignatureAlgorithm.EDDSA).sign(ed.getPrivate()))
                .getSubject());
        assertThrows(IllegalStateException.class, () -> verifier(Optional.empty(), Optional.of("not a key"),
                Optional.empty(), Optional.empty()));
    }
}
