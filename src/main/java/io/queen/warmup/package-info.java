/**
 * Startup warm-up: readiness stays down until the push, pop and ack paths and the HTTP pipeline ran once, so the
 * first requests a ready broker takes are not the ones that pay for class loading and first planning.
 */
package io.queen.warmup;
