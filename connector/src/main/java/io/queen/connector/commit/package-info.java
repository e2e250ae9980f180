/**
 * Commit strategies: when settled messages are acknowledged to the broker ({@code commit-strategy}).
 */
package io.queen.connector.commit;
