/**
 * Response headers of the web console's pages (the console itself is static resources).
 */
package io.queen.console;
