package io.queen.auth;

import java.util.UUID;

/**
 * Who a request acts for: its tenant, the token's {@code sub} (null without a token or without the claim; it
 * becomes the pushed messages' {@code producerSub}) and its role (null when authentication is off). Immutable.
 */
public record Caller(UUID tenant, String subject, Role role) {
}
