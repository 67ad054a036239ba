/**
 * The write path from application threads to a connection's event loop, both ends alike: a call's
 * messages are framed on the caller's thread ({@link dev.tern.netty.internal.write.OutboundFramer},
 * into {@code buffer}'s writable buffers) and handed over through the connection's {@link
 * dev.tern.netty.internal.write.WriteQueue}, which runs the queued commands on the event loop and
 * flushes once per drain (a default-executor worker holds the drain's wake-up until its task ends,
 * {@link dev.tern.internal.HeldWakes}); what the client's and the server's write sides share is
 * {@link dev.tern.netty.internal.write.ConnectionWrites} (the one buffer of a flush, with large
 * DATA payloads spliced in rather than copied, {@link
 * dev.tern.netty.internal.write.SplicedPayloads}; flushes held until a read ends; writes the
 * network fails); the channel's write-buffer water marks are {@link
 * dev.tern.netty.internal.write.WriteLimits}.
 *
 * <pre>
 *  application thread: OutboundFramer --&gt; NettyWritableBuffer --&gt; WriteQueue.enqueue
 *  event loop:         WriteQueue drain --&gt; client or server handler --&gt; HTTP/2 engine
 *                      --&gt; one buffer per flush (+ spliced payloads) --&gt; socket
 * </pre>
 *
 * <p>Threads: {@code WriteQueue} and {@code OutboundFramer} are the only classes called from
 * application threads (each says how it is safe); buffers are handed over, not shared; the rest
 * runs on the connection's event loop. Uses {@code buffer} only; never HTTP/2, the client, the
 * server or the exchanges (tools/java/package-rules.txt).
 */
package dev.tern.netty.internal.write;
