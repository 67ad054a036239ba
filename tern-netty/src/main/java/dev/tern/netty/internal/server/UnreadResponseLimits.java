package dev.tern.netty.internal.server;

import dev.tern.Status;
import dev.tern.internal.FieldHandles;
import dev.tern.netty.internal.io.NetworkFailures;
import dev.tern.netty.internal.write.OutboundFramer;
import io.netty.channel.ChannelHandlerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bounds on the response bytes one server connection holds for a client that does not read them
 * (its HTTP/2 windows stay closed, or its socket full), for handlers that send without looking at
 * {@code isReady()}. They are checked only when a message is written while its stream is not ready,
 * so a handler that honours {@code isReady()}, and a stream's first message in flight however
 * large, never meet them: a stream over its bound is reset with ENHANCE_YOUR_CALM, a connection
 * over its bound is closed with GOAWAY(ENHANCE_YOUR_CALM), and the calls end RESOURCE_EXHAUSTED.
 *
 * <p>Shared with tern-http3, whose server applies the same bounds to QUIC streams.
 *
 * <p>Thread-safety: the connection's count of queued bytes is added to by the streams' framers on
 * application threads and subtracted from on the event loop, and the connection bound is checked on
 * application threads: both are atomic. {@link #logOnce} is called on the event loop only.
 */
public final class UnreadResponseLimits {
  private static final VarHandle CONNECTION_TRIPPED =
      FieldHandles.of(MethodHandles.lookup(), "connectionTripped", boolean.class);

  private final int maxPerStream;
  private final long maxPerConnection;
  private final LongAdder queuedBytes = new LongAdder();

  /**
   * Set once, by CAS through {@link #CONNECTION_TRIPPED} (a field, not an object per connection).
   */
  private volatile boolean connectionTripped;

  private boolean logged;

  public UnreadResponseLimits(int maxPerStream, long maxPerConnection) {
    this.maxPerStream = maxPerStream;
    this.maxPerConnection = maxPerConnection;
  }

  /** The response bytes queued on all streams of the connection; see {@link OutboundFramer}. */
  public LongAdder queuedBytes() {
    return queuedBytes;
  }

  /** Whether a stream with {@code queued} bytes waiting is over its bound. Any thread. */
  public boolean streamOverLimit(int queued) {
    return queued > maxPerStream;
  }

  /** The status of a call reset for being over its bound. */
  public Status streamStatus() {
    return Status.RESOURCE_EXHAUSTED.withDescription(
        "Client does not read: more than "
            + maxPerStream
            + " bytes of responses queued on the call");
  }

  /** Whether the connection's streams have more bytes waiting than its bound. Any thread. */
  public boolean connectionOverLimit() {
    return queuedBytes.sum() > maxPerConnection;
  }

  /** True the first time only: the caller then has the connection closed. Any thread. */
  public boolean tripConnection() {
    return CONNECTION_TRIPPED.compareAndSet(this, false, true);
  }

  /** The status of the calls of a connection closed for being over its bound. */
  public Status connectionStatus() {
    return Status.RESOURCE_EXHAUSTED.withDescription(
        "Client does not read: more than "
            + maxPerConnection
            + " bytes of responses queued on its connection");
  }

  /** Why a connection over its bound is closed (GOAWAY's debug data, and the log line). */
  public String connectionProblem() {
    return "more than "
        + maxPerConnection
        + " bytes of responses queued: the client does not read them";
  }

  /** Why a stream over its bound is reset (the log line). */
  String streamProblem(int streamId) {
    return "more than "
        + maxPerStream
        + " bytes of responses queued on stream "
        + streamId
        + ": the client does not read them";
  }

  /** Logs {@code problem} as one FINE line, the first time only for the connection. */
  void logOnce(ChannelHandlerContext ctx, String problem) {
    if (!logged) {
      logged = true;
      NetworkFailures.log(ctx, "cut off", problem);
    }
  }
}
