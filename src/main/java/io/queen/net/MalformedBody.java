package io.queen.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.queen.logging.BadInputLog;
import java.nio.charset.StandardCharsets;

/**
 * Answers a request body the HTTP/1.x decoder cannot read (a chunk size that is not hexadecimal, a chunk line too
 * long) with a 400 in the API's JSON error shape and closes the connection. Vert.x reports such a decoder failure
 * as an exception on the connection, which closes it without a status and reaches the routes' failure handler and
 * the log as a stack trace per request: 104 bytes from a client wrote 35 lines of log. This handler sits first in
 * every connection's pipeline, where that exception passes before it reaches Vert.x, and stops it there; the line
 * logged is one, rate-limited ({@link BadInputLog}). Only while the connection speaks HTTP/1.x (Vert.x's
 * {@code httpDecoder} is in the pipeline) and only for the decoder's own failures; any other exception goes on.
 * Stateless; one per connection, confined to its event loop.
 */
final class MalformedBody extends ChannelInboundHandlerAdapter {
    static final String NAME = "queen-malformed-body";
    /** Vert.x's name for its HTTP/1.x request decoder (io.vertx.core.http.impl.HttpServerWorker). */
    static final String DECODER = "httpDecoder";
    private static final BadInputLog BAD_INPUT = new BadInputLog(MalformedBody.class);
    private static final byte[] ANSWER = ("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
            + "Connection: close\r\nContent-Length: 52\r\n\r\n"
            + "{\"error\":\"Bad request: the body cannot be decoded\"}\n").getBytes(StandardCharsets.US_ASCII);

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (ctx.pipeline().get(DECODER) == null || !decoderFailure(cause)) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        BAD_INPUT.warn("HTTP connection from " + ctx.channel().remoteAddress() + " closed, answered 400: "
                + cause.getClass().getSimpleName() + ": " + cause.getMessage());
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(ANSWER)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** What Netty's HTTP decoder reports for bytes it cannot read (a bad chunk size is a NumberFormatException). */
    static boolean decoderFailure(Throwable t) {
        return t instanceof NumberFormatException || t instanceof TooLongFrameException
                || t instanceof DecoderException;
    }
}
