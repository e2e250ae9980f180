/**
 * Log hygiene: client input escaped before it reaches a log line, and bad input logged at a bounded rate.
 */
package io.queen.logging;
