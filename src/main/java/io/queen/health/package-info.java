/**
 * The liveness and readiness answers of {@code /health}.
 */
package io.queen.health;
