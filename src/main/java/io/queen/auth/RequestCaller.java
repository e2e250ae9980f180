package io.queen.auth;

import jakarta.enterprise.context.RequestScoped;

/**
 * The {@link Caller} {@link AccessFilter} resolved for the current request. Only touched while access control is
 * active, so requests of a broker with it off never activate or read this bean. One request at a time.
 */
@RequestScoped
public class RequestCaller {
    private Caller caller;

    void set(Caller caller) {
        this.caller = caller;
    }

    Caller get() {
        return caller;
    }
}
