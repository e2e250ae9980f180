package io.queen.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sits in the listening channel's pipeline and sees every accepted connection before the HTTP server does:
 * closes it at once when the total or its address's count of open connections is at the cap (nothing is
 * allocated for it but the socket the kernel already made), otherwise counts it until it closes and gives it a
 * {@link Deadline} and a {@link MalformedBody} answer. The last {@code reserved} slots of the total go only to
 * addresses holding fewer than {@code reservedPerAddress} connections: a few addresses with many idle sockets
 * cannot take the slots a health check or an ordinary client needs. Thread-safe: accepts run on the acceptor
 * loop, closes on any loop.
 */
@ChannelHandler.Sharable
final class ConnectionGuard extends ChannelInboundHandlerAdapter {
    private final int maxTotal;
    private final int maxPerAddress;
    private final long headerNanos;
    private final long firstByteNanos;
    private final long keepAliveNanos;
    private final int reserved;
    private final int reservedPerAddress;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    final LongAdder rejected = new LongAdder();
    final LongAdder timedOut = new LongAdder();

    ConnectionGuard(int maxTotal, int maxPerAddress, long headerMs, long keepAliveMs) {
        this(maxTotal, maxPerAddress, headerMs, headerMs, keepAliveMs, 0, 0);
    }

    ConnectionGuard(int maxTotal, int maxPerAddress, long headerMs, long firstByteMs, long keepAliveMs,
            int reserved, int reservedPerAddress) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
        this.headerNanos = TimeUnit.MILLISECONDS.toNanos(headerMs);
        this.firstByteNanos = TimeUnit.MILLISECONDS.toNanos(firstByteMs > 0 ? Math.min(firstByteMs, headerMs)
                : headerMs);
        this.keepAliveNanos = TimeUnit.MILLISECONDS.toNanos(keepAliveMs);
        this.reserved = reserved;
        this.reservedPerAddress = reservedPerAddress;
    }

    int open() {
        return open.get();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Channel child)) {
            ctx.fireChannelRead(msg);
            return;
        }
        InetAddress address = address(child.remoteAddress());
        int total = open.incrementAndGet();
        if (maxTotal > 0 && total > maxTotal) {
            open.decrementAndGet();
            reject(child);
            return;
        }
        AtomicInteger mine = null;
        if (address != null) {
            mine = perAddress.computeIfAbsent(address, a -> new AtomicInteger());
            int held = mine.incrementAndGet();
            boolean inReserve = maxTotal > 0 && reserved > 0 && total > maxTotal - reserved;
            if ((held > maxPerAddress && maxPerAddress > 0) || (inReserve && held > reservedPerAddress)) {
                release(address, mine);
                open.decrementAndGet();
                reject(child);
                return;
            }
        }
        AtomicInteger counted = mine;
        child.closeFuture().addListener(f -> {
            open.decrementAndGet();
            if (counted != null) {
                release(address, counted);
            }
        });
        child.pipeline().addFirst(MalformedBody.NAME, new MalformedBody());
        if (headerNanos > 0) {
            child.pipeline().addFirst("queen-deadline", newDeadline());
        }
        ctx.fireChannelRead(child);
    }

    /** The per-connection head and keep-alive deadline (package-private for tests). */
    ChannelDuplexHandler newDeadline() {
        return new Deadline();
    }

    private void release(InetAddress address, AtomicInteger count) {
        if (count.decrementAndGet() <= 0) {
            perAddress.remove(address, count);   // a late increment on a removed counter re-creates it next time
        }
    }

    private void reject(Channel child) {
        rejected.increment();
        child.unsafe().closeForcibly();   // not registered with a loop yet: close the socket directly
    }

    private static InetAddress address(SocketAddress a) {
        return a instanceof InetSocketAddress i ? i.getAddress() : null;
    }

    /**
     * The head/keep-alive deadline of one connection, first in its pipeline (it sees raw bytes). States: waiting
     * for a request's first byte (deadline: accept + header timeout, or answer + keep-alive timeout), inside a
     * request head (deadline: its first byte + header timeout; later bytes do not extend it), inside a request
     * (no deadline: the server's idle timeout applies). The end of a head is its first empty line; any write by the
     * server (an answer) starts the wait for the next request. One timer at a time, re-armed lazily: the hot path
     * updates two fields and allocates nothing. Confined to the connection's event loop.
     *
     * <p>HTTP/1.x only: a connection that switches protocols (an h2c upgrade answered "101", as the JDK's HttpClient
     * asks by default) or opens with the HTTP/2 preface carries binary frames with no heads to find, so the handler
     * removes itself and the server's idle timeout governs the connection from then on.
     */
    private static final byte[] H2_PREFACE = "PRI * HTTP/2.0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] SWITCHING = "HTTP/1.1 101".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static boolean startsWith(ByteBuf buf, byte[] prefix) {
        if (buf.readableBytes() < prefix.length) {
            return false;
        }
        int i = buf.readerIndex();
        for (int k = 0; k < prefix.length; k++) {
            if (buf.getByte(i + k) != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    private final class Deadline extends ChannelDuplexHandler {
        private static final int WAITING = 0;
        private static final int IN_HEAD = 1;
        private static final int IN_REQUEST = 2;
        private int state = WAITING;
        private int lineChars;     // characters other than CR on the head's current line
        private boolean sawLine;   // the head has a non-empty line (the request line)
        private long deadline;
        private ScheduledFuture<?> timer;
        private final Runnable check = this::check;
        private ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            // a connection that sends nothing at all frees its slot sooner than a head in progress
            deadline = System.nanoTime() + firstByteNanos;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            arm();
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (state == WAITING && msg instanceof ByteBuf buf && startsWith(buf, H2_PREFACE)) {
                stopTracking(ctx);
                ctx.fireChannelRead(msg);
                return;
            }
            if (state != IN_REQUEST && msg instanceof ByteBuf buf && buf.isReadable()) {
                if (state == WAITING) {
                    state = IN_HEAD;
                    lineChars = 0;
                    sawLine = false;
                    deadline = System.nanoTime() + headerNanos;
                }
                scan(buf);
            }
            ctx.fireChannelRead(msg);
        }

        /**
         * Finds the empty line that ends the head, without moving the reader index: a LF after a line holding
         * nothing but CR, once a non-empty line was seen (LF-only line ends count, as the HTTP decoder accepts
         * them; leading empty lines do not end a head).
         */
        private void scan(ByteBuf buf) {
            int end = buf.writerIndex();
            for (int i = buf.readerIndex(); i < end; i++) {
                byte b = buf.getByte(i);
                if (b == '\n') {
                    if (lineChars == 0 && sawLine) {
                        state = IN_REQUEST;
                        return;
                    }
                    sawLine |= lineChars > 0;
                    lineChars = 0;
                } else if (b != '\r') {
                    lineChars++;
                }
            }
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf buf && startsWith(buf, SWITCHING)) {
                ctx.write(msg, promise);
                stopTracking(ctx);   // HTTP/2 (or another protocol) from here on
                return;
            }
            if (msg instanceof ByteBuf buf && interim(buf)) {
                ctx.write(msg, promise);   // "100 Continue": the request (its body) is still to come
                return;
            }
            if (state == IN_REQUEST) {
                state = WAITING;
                deadline = System.nanoTime() + keepAliveNanos;
                if (timer == null) {
                    arm();
                }
            } else if (state == WAITING) {
                deadline = System.nanoTime() + keepAliveNanos;
            }
            ctx.write(msg, promise);
        }

        private void stopTracking(ChannelHandlerContext ctx) {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            state = IN_REQUEST;
            ctx.pipeline().remove(this);
        }

        /** An HTTP/1.x 1xx interim answer ("HTTP/1.1 100 Continue"), which ends no request. */
        private static boolean interim(ByteBuf buf) {
            int i = buf.readerIndex();
            return buf.readableBytes() >= 12 && buf.getByte(i) == 'H' && buf.getByte(i + 4) == '/'
                    && buf.getByte(i + 8) == ' ' && buf.getByte(i + 9) == '1';
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            ctx.fireChannelInactive();
        }

        private void arm() {
            long delay = deadline - System.nanoTime();
            timer = ctx.executor().schedule(check, Math.max(delay, 1), TimeUnit.NANOSECONDS);
        }

        private void check() {
            timer = null;
            if (!ctx.channel().isActive() || state == IN_REQUEST) {
                return;   // a request in progress: re-armed by the answer's write
            }
            if (System.nanoTime() - deadline >= 0) {
                timedOut.increment();
                ctx.channel().close();
            } else {
                arm();
            }
        }
    }
}
