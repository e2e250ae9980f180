package io.queen.crypto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.queen.config.QueenConfig;
import io.queen.envelope.RecordEnvelope;
import io.queen.segment.Frame;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Payload encryption for queues with {@code encryptionEnabled}: AES-256-GCM under {@code QUEEN_ENCRYPTION_KEY}
 * (64 hex characters). The stored payload is the JSON envelope {@code {"encrypted","iv","authTag"}} (base64)
 * and the frame carries flag 4; every read decrypts, so clients only ever see plaintext. Without a key an
 * encrypted queue stores plaintext (the API spec's rule) and the broker says so in its log. Thread-safe (a new
 * {@link Cipher} per call; the key is immutable).
 */
@ApplicationScoped
public class PayloadCipher {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** Marks an envelope where no frame flag travels with it (dead-letter snapshots). */
    static final String ALG = "AES-256-GCM";

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    PayloadCipher(QueenConfig config) {
        this.key = config.encryptionKey().filter(k -> !k.isBlank()).map(PayloadCipher::parseKey).orElse(null);
    }

    static SecretKeySpec parseKey(String hex) {
        byte[] raw;
        try {
            raw = HexFormat.of().parseHex(hex.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("QUEEN_ENCRYPTION_KEY must be 64 hex characters (32 bytes)");
        }
        if (raw.length != 32) {
            throw new IllegalStateException("QUEEN_ENCRYPTION_KEY must be 64 hex characters (32 bytes), got "
                    + raw.length + " bytes");
        }
        return new SecretKeySpec(raw, "AES");
    }

    public boolean enabled() {
        return key != null;
    }

    /** Encrypts JSON payload bytes into the envelope's JSON bytes. */
    public byte[] encrypt(byte[] plaintext) {
        try {
            byte[] iv = new byte[IV_BYTES];
            random.nextBytes(iv);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            byte[] out = c.doFinal(plaintext);
            int tagLen = TAG_BITS / 8;
            Base64.Encoder b64 = Base64.getEncoder();
            ObjectNode env = MAPPER.createObjectNode();
            env.put("alg", ALG);
            env.put("encrypted", b64.encodeToString(Arrays.copyOf(out, out.length - tagLen)));
            env.put("iv", b64.encodeToString(iv));
            env.put("authTag", b64.encodeToString(Arrays.copyOfRange(out, out.length - tagLen, out.length)));
            return MAPPER.writeValueAsBytes(env);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("payload encryption failed", e);
        }
    }

    /** A frame's payload as the producer sent it: decrypted when the frame carries flag 4. */
    public byte[] plaintext(Frame f) {
        return f.encrypted() ? decrypt(f.payload()) : f.payload();
    }

    /** A frame's key as the producer sent it (decrypted when the frame carries flag 4), or null without one. */
    public byte[] key(Frame f) {
        return f.key() == null || !f.encrypted() ? f.key() : decrypt(f.key());
    }

    /**
     * A frame as HTTP readers see it: payload and key decrypted, and a Kafka record (flag 8) as its JSON envelope
     * with its Kafka key as the frame's key.
     */
    public Frame httpFrame(Frame f) {
        return RecordEnvelope.http(f, plaintext(f), key(f));
    }

    /** A frame's payload as HTTP readers see it: decrypted, and a Kafka record (flag 8) as its JSON envelope. */
    public byte[] httpPayload(Frame f) {
        return RecordEnvelope.httpPayload(f, plaintext(f));
    }

    /**
     * A frame's payload as a dead letter keeps it (a JSON snapshot): as stored, so still encrypted under flag 4, with
     * a Kafka record (flag 8) as its JSON envelope, encrypted again where it was.
     */
    public byte[] deadLetterPayload(Frame f) {
        if (!f.kafkaRecord()) {
            return f.payload();
        }
        byte[] json = httpPayload(f);
        return f.encrypted() ? encrypt(json) : json;
    }

    /** Whether a stored JSON value (a dead-letter snapshot) is one of our envelopes. */
    public static boolean isEnvelope(JsonNode n) {
        return n != null && n.isObject() && n.size() == 4 && ALG.equals(n.path("alg").asText(null))
                && n.path("encrypted").isTextual() && n.path("iv").isTextual() && n.path("authTag").isTextual();
    }

    /**
     * A dead-letter snapshot for display: an envelope is decrypted when the key is here; anything else (or a
     * failed decryption) is shown as stored.
     */
    public JsonNode reveal(JsonNode stored) {
        if (!isEnvelope(stored) || key == null) {
            return stored;
        }
        try {
            return MAPPER.readTree(decrypt(MAPPER.writeValueAsBytes(stored)));
        } catch (IOException | IllegalStateException e) {
            return stored;
        }
    }

    /** Decrypts an envelope's JSON bytes back to the payload bytes as the producer sent them. */
    public byte[] decrypt(byte[] envelope) {
        if (key == null) {
            throw new IllegalStateException("an encrypted payload cannot be read: QUEEN_ENCRYPTION_KEY is not set");
        }
        try {
            JsonNode env = MAPPER.readTree(envelope);
            Base64.Decoder b64 = Base64.getDecoder();
            byte[] data = b64.decode(env.get("encrypted").asText());
            byte[] tag = b64.decode(env.get("authTag").asText());
            byte[] iv = b64.decode(env.get("iv").asText());
            byte[] in = Arrays.copyOf(data, data.length + tag.length);
            System.arraycopy(tag, 0, in, data.length, tag.length);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            return c.doFinal(in);
        } catch (GeneralSecurityException | IOException | NullPointerException | IllegalArgumentException e) {
            throw new IllegalStateException("payload decryption failed (wrong QUEEN_ENCRYPTION_KEY or a damaged"
                    + " envelope): " + e.getMessage(), e);
        }
    }
}
