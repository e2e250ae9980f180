/**
 * The connection guard: limits on connections per address and in all, checked at accept time, before any request is
 * read.
 */
package io.queen.net;
