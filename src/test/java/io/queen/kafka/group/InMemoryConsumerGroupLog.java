package io.queen.kafka.group;

import java.util.concurrent.ConcurrentHashMap;

/** A {@link ConsumerGroupLog} in memory, shared by the coordinators of a test as PostgreSQL is by brokers. */
final class InMemoryConsumerGroupLog implements ConsumerGroupLog {
    private final ConcurrentHashMap<ClassicGroups.Key, Saved> saved = new ConcurrentHashMap<>();

    @Override
    public Saved load(ClassicGroups.Key key) {
        return saved.get(key);
    }

    @Override
    public synchronized long save(ClassicGroups.Key key, long expectedVersion, int groupEpoch, String state) {
        Saved now = saved.get(key);
        if ((now == null ? 0 : now.version()) != expectedVersion) {
            return -1;
        }
        saved.put(key, new Saved(expectedVersion + 1, state));
        return expectedVersion + 1;
    }

    @Override
    public void delete(ClassicGroups.Key key) {
        saved.remove(key);
    }
}
