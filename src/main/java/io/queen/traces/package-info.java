/**
 * Message traces: the trace routes and their store.
 */
package io.queen.traces;
