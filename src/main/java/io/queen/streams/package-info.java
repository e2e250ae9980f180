/**
 * The streaming SDK's routes ({@code /streams/v1}): queries, cycles that pop, ack and push in one transaction, and
 * keyed state.
 */
package io.queen.streams;
