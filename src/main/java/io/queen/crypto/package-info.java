/**
 * Payload encryption for queues with encryptionEnabled: AES-256-GCM envelopes sealed on push and opened on every
 * read path.
 */
package io.queen.crypto;
