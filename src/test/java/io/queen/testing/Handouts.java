package io.queen.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;

/** What concurrent workers were handed (offsets, messages): no value may reach two of them, or one twice. Stateless. */
public final class Handouts {
    private Handouts() {
    }

    /**
     * The values the workers' futures return, together; a value returned a second time fails as
     * "{@code what} value {@code twice}" (e.g. "offset 7 handed out twice").
     */
    public static <T> Set<T> once(List<Future<List<T>>> results, String what, String twice) throws Exception {
        Set<T> all = new HashSet<>();
        for (Future<List<T>> f : results) {
            for (T v : f.get()) {
                assertTrue(all.add(v), what + " " + v + " " + twice);
            }
        }
        return all;
    }
}
