package io.queen.kafka.group;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link GroupLog} in memory with the database's rule (a save continues the version it names, or is refused), so
 * tests can run several coordinators over one log and drive their clocks. Thread-safe.
 */
final class InMemoryGroupLog implements GroupLog {
    final Map<ClassicGroups.Key, Saved> saved = new ConcurrentHashMap<>();

    @Override
    public Saved load(ClassicGroups.Key key) {
        return saved.get(key);
    }

    @Override
    public synchronized long save(ClassicGroups.Key key, long expectedVersion, Saved s) {
        Saved old = saved.get(key);
        long have = old == null ? 0 : old.version();
        if (have != expectedVersion || (old != null && old.generation() > s.generation())) {
            return -1;
        }
        saved.put(key, new Saved(have + 1, s.generation(), s.state(), s.protocolType(), s.protocolName(),
                s.leaderId(), s.members()));
        return have + 1;
    }

    @Override
    public void delete(ClassicGroups.Key key) {
        saved.remove(key);
    }
}
