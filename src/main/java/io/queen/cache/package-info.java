/**
 * The shape of the broker's in-memory memos of answers it could ask for again: a map that forgets everything when
 * an insert finds it full ({@link io.queen.cache.CappedMap}), so that names sent by clients cannot grow memory.
 */
package io.queen.cache;
