package io.queen.connector.client;

/**
 * A broker answer that is not a success: a non-2xx status with the broker's {@code error} text, or a
 * transport failure after every URL and retry was tried.
 * <p>
 * Immutable, thread-safe.
 */
public class QueenHttpException extends RuntimeException {

    private final int status;

    public QueenHttpException(int status, String message) {
        super(message);
        this.status = status;
    }

    public QueenHttpException(String message, Throwable cause) {
        super(message, cause);
        this.status = -1;
    }

    /** The HTTP status, or -1 when the broker could not be reached. */
    public int status() {
        return status;
    }

    /** Server-side trouble or no answer at all: the same request may succeed when sent again. */
    public boolean isTransient() {
        return status < 0 || status >= 500;
    }
}
