package io.queen.api;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.concurrent.TimeUnit;

/**
 * Closes an HTTP/1 connection whose request was answered before its body was read (a body over the limit), the way
 * HTTP servers do it ("lingering close"). Closing a socket that holds unread bytes sends a reset, and a reset that
 * reaches the client while it is still writing its body throws away the answer it has not read yet: under load, a
 * client saw "no bytes" instead of its 413. So the answer goes out followed by a FIN, what the client still sends
 * is read and dropped (up to a byte budget, so a refused body is never read whole), and the socket closes when the
 * client closes its side or {@link #LINGER_MS} after the answer, whichever comes first. HTTP/2 streams are reset by
 * the HTTP server itself and keep their connection.
 */
final class LingeringClose {
    /** How long a refused request's connection stays open after its answer. */
    static final long LINGER_MS = 2_000;

    private LingeringClose() {
    }

    /** After the answer was written: drop at most {@code budget} more bytes, then close. */
    static void after(HttpServerRequest r, long budget) {
        if (r.version() == HttpVersion.HTTP_2) {
            return;
        }
        if (!(r.connection() instanceof ConnectionBase base) || !(base.channel() instanceof SocketChannel ch)) {
            r.connection().close();
            return;
        }
        ch.eventLoop().execute(() -> {
            ch.pipeline().addFirst("queen-lingering-close", new Dropping(budget));
            ch.config().setAutoRead(true);
            ch.shutdownOutput();
            ch.eventLoop().schedule(() -> ch.close(), LINGER_MS, TimeUnit.MILLISECONDS);
        });
    }

    /** Drops what arrives; past the budget stops reading (the client's writes then stall until the close). */
    private static final class Dropping extends ChannelInboundHandlerAdapter {
        private long left;

        Dropping(long budget) {
            this.left = budget;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b) {
                left -= b.readableBytes();
            }
            ReferenceCountUtil.release(msg);
            if (left <= 0) {
                ctx.channel().config().setAutoRead(false);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            // nothing reaches the HTTP server's handlers any more
        }
    }
}
