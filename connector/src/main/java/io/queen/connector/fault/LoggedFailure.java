package io.queen.connector.fault;

import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.queen.connector.QueenConnectorIncomingConfiguration;
import io.queen.connector.incoming.QueenMessage;

/**
 * What the built-in failure strategies share: each logs the failed message (channel, transaction id, what it does
 * with it, the error text) on its own logger at its own level, then settles it its own way ({@link #settle}).
 * <p>
 * Stateless apart from the channel context; thread-safe.
 */
public abstract class LoggedFailure implements QueenFailureHandler {

    private final System.Logger log = System.getLogger(getClass().getName());
    private final System.Logger.Level level;
    private final String outcome;
    protected final Context context;

    /** {@code outcome} completes the log line "channel c: message m {outcome}: error". */
    protected LoggedFailure(Context context, System.Logger.Level level, String outcome) {
        this.context = context;
        this.level = level;
        this.outcome = outcome;
    }

    @Override
    public final CompletionStage<Void> handle(QueenMessage<?> message, Throwable reason) {
        String error = QueenFailureHandler.describe(reason);
        log.log(level, "channel {0}: message {1} {2}: {3}", context.channel(), message.metadata().transactionId(),
                outcome, error);
        return settle(message, reason, error);
    }

    /** Settles the logged message; {@code error} is {@code reason} as {@link QueenFailureHandler#describe} says it. */
    protected abstract CompletionStage<Void> settle(QueenMessage<?> message, Throwable reason, String error);

    /**
     * The CDI factory of a built-in strategy, which needs only the channel context; each strategy's subclass
     * carries its {@code @Identifier}.
     */
    public abstract static class Factory implements QueenFailureHandler.Factory {
        private final Function<Context, QueenFailureHandler> make;

        protected Factory(Function<Context, QueenFailureHandler> make) {
            this.make = make;
        }

        @Override
        public QueenFailureHandler create(QueenConnectorIncomingConfiguration config, Context context) {
            return make.apply(context);
        }
    }
}
