package io.queen.kafka.group;

/**
 * Where a consumer-protocol group's state outlives the broker coordinating it (db/028_kafka_consumer_groups.sql):
 * the group epoch, the target assignment and every member with its epoch and partitions, as one JSON document.
 * Saved by the coordinator at each change of them (not at a heartbeat that changes nothing), loaded by whichever
 * broker coordinates the group next. A save names the version it continues and is refused over any other, as
 * {@link GroupLog}'s. Implementations are thread-safe.
 */
interface ConsumerGroupLog {
    /** A group's state as saved; {@code version} counts the saves (the first is 1). */
    record Saved(long version, String state) {
    }

    /** The saved state, or null when the group has none. */
    Saved load(ClassicGroups.Key key);

    /**
     * Saves {@code state} over {@code expectedVersion} (0: nothing saved yet); answers the new version, or -1 when the
     * saved state has moved on (the caller's copy is stale). Throws {@link GroupLog.Unavailable} when it failed.
     */
    long save(ClassicGroups.Key key, long expectedVersion, int groupEpoch, String state);

    /** Forgets the group's saved state. */
    void delete(ClassicGroups.Key key);
}
