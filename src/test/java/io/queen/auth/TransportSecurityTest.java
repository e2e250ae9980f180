package io.queen.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.queen.testing.FreshDatabase;
import io.queen.testing.SelfSignedKeyStore;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * TLS through Quarkus' {@code quarkus.http.ssl.*} (a self-signed PKCS#12 key store made with keytool at test
 * time) and CORS limited to the origins of {@code QUEEN_CORS_ORIGINS}.
 */
@QuarkusTest
@TestProfile(TransportSecurityTest.Tls.class)
@WithTestResource(value = FreshDatabase.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class TransportSecurityTest {
    static final String PASSWORD = "queen-test";

    public static class Tls implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.ssl.certificate.key-store-file", SelfSignedKeyStore.create(PASSWORD).toString(),
                    "quarkus.http.ssl.certificate.key-store-password", PASSWORD,
                    "quarkus.http.test-ssl-port", "0",
                    "QUEEN_CORS_ORIGINS", "http://dashboard.example");
        }
    }

    @TestHTTPResource(value = "/health", tls = true)
    URL https;

    @TestHTTPResource("/api/v1/push")
    URL push;

    /** The key store the broker was started with (the profile's class loader made it). */
    @ConfigProperty(name = "quarkus.http.ssl.certificate.key-store-file")
    String keystore;

    @Test
    void servesHttpsWithTheConfiguredCertificate() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keystore)) {
            trust.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        assertEquals("https", https.getProtocol());
        HttpClient client = HttpClient.newBuilder().sslContext(ssl).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(https.toURI()).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("healthy"), r.body());
        assertTrue(r.sslSession().isPresent());
    }

    static Optional<String> allowOrigin(URL url, String origin) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url.toString()))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).header("Origin", origin)
                .header("Access-Control-Request-Method", "POST").build(), HttpResponse.BodyHandlers.ofString());
        return r.headers().firstValue("Access-Control-Allow-Origin");
    }

    @Test
    void corsAnswersOnlyConfiguredOrigins() throws Exception {
        assertEquals(Optional.of("http://dashboard.example"), allowOrigin(push, "http://dashboard.example"));
        assertEquals(Optional.empty(), allowOrigin(push, "http://evil.example"));
    }
}
