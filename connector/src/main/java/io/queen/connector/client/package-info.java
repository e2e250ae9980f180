/**
 * The HTTP client of the broker's API the channels share: requests, back-off, and the wire format of pops, acks and
 * pushes.
 */
package io.queen.connector.client;
