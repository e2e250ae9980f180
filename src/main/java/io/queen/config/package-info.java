/**
 * The typed configuration ({@link io.queen.config.QueenConfig}); defaults live in application.properties.
 */
package io.queen.config;
