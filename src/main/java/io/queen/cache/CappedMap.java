package io.queen.cache;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A concurrent map of at most {@code cap} entries that is emptied when an insert finds it full. It holds what can
 * be asked for again (a database answer, a scan floor, an id): an entry lost to a clear costs its next user one
 * more look-up, never a wrong answer, and dropping everything at once bounds memory without keeping an eviction
 * order on every hit. The entries an insert brings survive the clear it causes, so a caller can read back what it
 * just stored. Thread-safe: each insert checks the size before it inserts, so concurrent inserts may pass the cap
 * by at most their number; a batch larger than the cap ({@link #putAll}) is kept whole.
 */
public final class CappedMap<K, V> {
    private final ConcurrentHashMap<K, V> map = new ConcurrentHashMap<>();
    private final int cap;

    public CappedMap(int cap) {
        this.cap = cap;
    }

    public V get(K key) {
        return map.get(key);
    }

    /** Stores {@code value} under {@code key}, emptying the map first when it holds {@code cap} entries. */
    public void put(K key, V value) {
        makeRoom(1);
        map.put(key, value);
    }

    /**
     * Stores every entry of {@code entries}, emptying the map first when they would take it past {@code cap}: the
     * entries of one batch are kept together.
     */
    public void putAll(Map<K, V> entries) {
        makeRoom(entries.size());
        map.putAll(entries);
    }

    /**
     * Stores {@code value} unless {@code key} has one, emptying the map first when it holds {@code cap} entries;
     * answers the value {@code key} had (null: {@code value} is stored).
     */
    public V putIfAbsent(K key, V value) {
        makeRoom(1);
        return map.putIfAbsent(key, value);
    }

    /** Replaces {@code key}'s value if it is still {@code expected} (never adds an entry, so never empties). */
    public boolean replace(K key, V expected, V value) {
        return map.replace(key, expected, value);
    }

    public void remove(K key) {
        map.remove(key);
    }

    /** Removes {@code key}'s entry if its value is still {@code expected}. */
    public void remove(K key, V expected) {
        map.remove(key, expected);
    }

    /** Removes the entries whose key {@code test} accepts. */
    public void removeKeysIf(Predicate<? super K> test) {
        map.keySet().removeIf(test);
    }

    public int size() {
        return map.size();
    }

    private void makeRoom(int adding) {
        if (map.size() + adding > cap) {
            map.clear();
        }
    }
}
