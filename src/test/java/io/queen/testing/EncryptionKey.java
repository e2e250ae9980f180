package io.queen.testing;

/** The broker with a payload encryption key, so {@code encryptionEnabled} queues can be written and read. */
public class EncryptionKey extends Settings {
    public EncryptionKey() {
        super("queen.encryption-key", "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    }
}
