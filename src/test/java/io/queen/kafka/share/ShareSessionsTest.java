package io.queen.kafka.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.errors.ShareSessionLimitReachedException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The broker's cap on share sessions and the eviction of an idle one, on a clock the test drives. */
class ShareSessionsTest {
    static final UUID TENANT = UUID.randomUUID();

    final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
    final ShareSessions sessions = new ShareSessions(2, now::get);

    static ShareSessions.Key member(String id) {
        return new ShareSessions.Key(TENANT, "g", id);
    }

    void advanceSeconds(long seconds) {
        now.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    @Test
    void whenFullANewSessionIsRefusedUnlessOneWasIdleForTheEvictionTime() {
        sessions.enter(member("a"), 0);
        advanceSeconds(10);
        sessions.enter(member("b"), 0);

        advanceSeconds(TimeUnit.NANOSECONDS.toSeconds(ShareSessions.IDLE_NANOS) - 11);  // a idle 119 s, b 109 s
        ShareSessionLimitReachedException refused = assertThrows(ShareSessionLimitReachedException.class,
                () -> sessions.enter(member("c"), 0));
        assertEquals(Errors.SHARE_SESSION_LIMIT_REACHED, Errors.forException(refused));
        assertEquals(2, sessions.enter(member("a"), 1).epoch, "a kept its session, and used it now");

        advanceSeconds(15);  // b idle 124 s, a 15 s
        assertEquals(1, sessions.enter(member("c"), 0).epoch, "b, idle past the eviction time, made room");
        assertThrows(ShareSessionNotFoundException.class, () -> sessions.enter(member("b"), 2));
        assertEquals(3, sessions.enter(member("a"), 2).epoch, "the recently used session stays");
        assertThrows(ShareSessionLimitReachedException.class, () -> sessions.enter(member("d"), 0),
                "full again, and none idle");
    }

    @Test
    void aMemberOpeningAgainTakesItsOwnPlaceWhateverTheLimit() {
        sessions.enter(member("a"), 0);
        sessions.enter(member("b"), 0);
        assertEquals(1, sessions.enter(member("a"), 0).epoch, "its old session made room");
        assertThrows(ShareSessionLimitReachedException.class, () -> sessions.enter(member("c"), 0));
    }
}
