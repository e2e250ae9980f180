/**
 * The Quarkus extension's build steps: Dev Services start a Queen broker (container image or local process) for
 * channels that name no broker.
 */
package io.queen.quarkus.deployment;
