package io.queen.auth;

import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code JWT_PUBLIC_KEY}: a PEM public key ({@code BEGIN PUBLIC KEY}, RSA, EC or Ed25519/Ed448) or certificate,
 * with real or {@code \n}-escaped line breaks (as environment variables often carry it), and the signature
 * algorithms its type allows: a token's {@code alg} must match the key's family. Stateless.
 */
final class PemKeys {
    private PemKeys() {
    }

    static PublicKey parse(String pem) {
        String text = pem.replace("\\n", "\n").replace("\r", "").strip();
        try {
            if (text.contains("BEGIN CERTIFICATE")) {
                return CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)))
                        .getPublicKey();
            }
            String body = text.replaceAll("-----(BEGIN|END) [A-Z ]+-----", "").replaceAll("\\s", "");
            X509EncodedKeySpec spec = new X509EncodedKeySpec(Base64.getDecoder().decode(body));
            for (String kind : new String[] {"RSA", "EC", "EdDSA"}) {
                try {
                    return KeyFactory.getInstance(kind).generatePublic(spec);
                } catch (GeneralSecurityException notThisKind) {
                    // next kind
                }
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("JWT_PUBLIC_KEY is not a PEM public key or certificate: " + e.getMessage(),
                    e);
        }
        throw new IllegalStateException("JWT_PUBLIC_KEY is not an RSA, EC or EdDSA public key");
    }

    static Set<SignatureAlgorithm> algorithms(PublicKey key) {
        return switch (key.getAlgorithm()) {
            case "RSA" -> EnumSet.of(SignatureAlgorithm.RS256, SignatureAlgorithm.RS384, SignatureAlgorithm.RS512,
                    SignatureAlgorithm.PS256, SignatureAlgorithm.PS384, SignatureAlgorithm.PS512);
            case "EC" -> EnumSet.of(SignatureAlgorithm.ES256, SignatureAlgorithm.ES384, SignatureAlgorithm.ES512);
            default -> EnumSet.of(SignatureAlgorithm.EDDSA);
        };
    }
}
