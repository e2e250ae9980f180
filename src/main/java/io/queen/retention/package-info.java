/**
 * Retention: the cycle that deletes segments past a queue's retention and its history.
 */
package io.queen.retention;
