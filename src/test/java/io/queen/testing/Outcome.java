package io.queen.testing;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * What a client saw from one HTTP request to a broker that may be stopping or losing its database: an answer, a
 * refusal (the request did not run, or its client may retry it as if it had not), or a broken exchange. Immutable.
 */
public sealed interface Outcome permits Outcome.Answered, Outcome.Refused, Outcome.Broken {

    /** An HTTP answer. */
    record Answered(int status, String body) implements Outcome {
    }

    /**
     * Connection refused, the 503 a stopping broker answers before running a request, or a connection closed with
     * no byte of answer as the broker closed its sockets. The last one could hide a request that ran: a push moved
     * to another broker must then come back "queued", never "duplicate" (that would be a commit its client was
     * never told about).
     */
    record Refused(String why) implements Outcome {
    }

    /** Anything else: an I/O failure after the request was sent. */
    record Broken(String why) implements Outcome {
    }

    /** Sends {@code request}; with {@code unavailableRefuses} any 503 counts as a refusal (database away). */
    static Outcome of(HttpClient http, HttpRequest request, boolean unavailableRefuses) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 503 && r.headers().firstValue("connection").orElse("").equalsIgnoreCase("close")) {
                return new Refused("503 shutting down");
            }
            if (r.statusCode() == 503 && unavailableRefuses) {
                return new Refused("503 database unavailable");
            }
            return new Answered(r.statusCode(), r.body());
        } catch (ConnectException e) {
            return new Refused("connection refused");
        } catch (IOException e) {
            if (String.valueOf(e.getMessage()).contains("received no bytes")) {
                return new Refused("closed before any answer");
            }
            return new Broken(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Broken("interrupted");
        }
    }
}
