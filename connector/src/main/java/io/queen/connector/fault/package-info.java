/**
 * Failure strategies: what a nack does ({@code failure-strategy}): stop, ignore, retry through the broker, or
 * dead-letter.
 */
package io.queen.connector.fault;
