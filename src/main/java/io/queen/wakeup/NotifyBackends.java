package io.queen.wakeup;

import jakarta.inject.Singleton;

/**
 * The PostgreSQL backend pids of this broker's two notification connections, which the publisher and the listener
 * each need of the other: the listener skips notifications sent from the publisher's backend (its own echo), and
 * the publisher leaves the listener's backend out when it counts other listening brokers. 0 = no such connection.
 * Thread-safe (volatile fields, each written by one thread).
 */
@Singleton
class NotifyBackends {
    private volatile int publisherPid;
    private volatile int listenerPid;

    int publisherPid() {
        return publisherPid;
    }

    void publisherPid(int pid) {
        publisherPid = pid;
    }

    int listenerPid() {
        return listenerPid;
    }

    void listenerPid(int pid) {
        listenerPid = pid;
    }
}
