/**
 * Event loops, channel types, sockets and the plumbing of a connection both ends share: which kind
 * of Netty transport runs (NIO, epoll, io_uring: {@link dev.tern.netty.internal.io.TransportKind}),
 * the process-wide shared groups ({@link dev.tern.netty.internal.io.EventLoops}), Unix domain
 * socket addresses, a socket's channelz view ({@link dev.tern.netty.internal.io.SocketNode}), the
 * TLS attributes of a channel ({@link dev.tern.netty.internal.io.TlsAttributes}), network failures
 * as statuses and log lines ({@link dev.tern.netty.internal.io.NetworkFailures}), and the
 * connection timers: keepalive ({@link dev.tern.netty.internal.io.KeepAlivePinger}, which writes
 * its PING through a callback) and the idle and age limits ({@link
 * dev.tern.netty.internal.io.ConnectionAgeLimits}), and each loop's hand-off to the application's
 * executors ({@link dev.tern.netty.internal.io.ReadBatchHandOff}: what a batch of reads gives an
 * executor, server calls and client responses alike, goes over after the loop's I/O).
 *
 * <pre>
 *  builder's build() --&gt; EventLoops.kind() (system property, or epoll if it loads, else NIO)
 *                    --&gt; shared groups, channel type for the address --&gt; client / server
 *  channelz, any thread --&gt; SocketNode --&gt; the channel's counters and socket options
 * </pre>
 *
 * <p>In: addresses and groups from the builders. Out: groups, channel classes, converted addresses.
 * Threads: the kind and the shared groups are set once under a class lock; native support is probed
 * once, lazily; {@code SocketNode}'s counters are written on the event loop and read from any
 * thread; the timers run on their connection's event loop; a loop's hand-off gathers on that loop
 * only. Knows nothing of HTTP/2: it uses none of the other internal packages.
 */
package dev.tern.netty.internal.io;
