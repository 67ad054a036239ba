package dev.tern.internal.server;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.Context;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.internal.TracerEvents;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import dev.tern.spi.WireSizeListener;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A server stream that tells its {@link ServerStreamTracer}s what happens to it: the call started,
 * headers out, each message out and in (with its uncompressed size when the message knows its
 * length, and its wire size when the transport frames it), closed. Used only when the server has
 * tracer factories, so untraced servers pay nothing.
 *
 * <p>A tracer that throws is logged once for this stream and otherwise ignored.
 *
 * <p>Thread-safety: that of the stream it wraps. Outbound events are reported from the thread
 * calling the stream, inbound ones from the listener's thread.
 */
public final class TracedServerStream implements ServerStream {
  private static final Logger logger = Logger.getLogger(TracedServerStream.class.getName());

  private final ServerStream delegate;
  private final TracerEvents<ServerStreamTracer> events;
  private int outboundSeqNo; // the writing thread's

  /** The status the server closed the stream with; null until it does. */
  private volatile Status closeStatus;

  private TracedServerStream(ServerStream delegate, ServerStreamTracer[] tracers) {
    this.delegate = delegate;
    this.events = new TracerEvents<>(tracers);
  }

  /**
   * {@code stream} traced by a tracer from each of {@code factories}; {@code stream} itself if none
   * returns a tracer.
   */
  static ServerStream trace(
      ServerStream stream,
      List<ServerStreamTracer.Factory> factories,
      String fullMethodName,
      Metadata headers) {
    List<ServerStreamTracer> created = new ArrayList<>(factories.size());
    for (ServerStreamTracer.Factory factory : factories) {
      try {
        ServerStreamTracer tracer = factory.newServerStreamTracer(fullMethodName, headers);
        if (tracer != null) {
          created.add(tracer);
        }
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "Stream tracer factory " + factory + " threw; not tracing", e);
      }
    }
    if (created.isEmpty()) {
      return stream;
    }
    return new TracedServerStream(stream, created.toArray(new ServerStreamTracer[0]));
  }

  /**
   * {@code context} as the tracers filter it, in order; a tracer that throws or returns null is
   * skipped (and logged, like any failing tracer).
   */
  Context filterContext(Context context) {
    Context[] result = {context};
    events.report(
        t -> result[0] = Objects.requireNonNull(t.filterContext(result[0]), "filterContext"));
    return result[0];
  }

  /** The call found its method and is about to start. */
  void callStarted(ServerStreamTracer.ServerCallInfo<?, ?> info) {
    events.report(t -> t.serverCallStarted(info));
  }

  /** The server refused the call at admission, before its handler ran. */
  void callRefused(ServerStreamTracer.Refusal refusal) {
    events.report(t -> t.callRefused(refusal));
  }

  @Override
  public void setListener(ServerStreamListener listener) {
    delegate.setWireSizeListener(
        new WireSizeListener() {
          @Override
          public void outboundWireSize(long bytes) {
            events.report(t -> t.outboundWireSize(bytes));
          }

          @Override
          public void inboundWireSize(long bytes) {
            events.report(t -> t.inboundWireSize(bytes));
          }
        });
    delegate.setListener(
        new ServerStreamListener() {
          private int inboundSeqNo; // the listener's thread's

          @Override
          public void messageRead(InputStream message) {
            int seqNo = inboundSeqNo++;
            long size = TracerEvents.knownLength(message);
            events.report(
                t -> {
                  t.inboundMessage(seqNo);
                  if (size >= 0) {
                    t.inboundUncompressedSize(size);
                  }
                });
            listener.messageRead(message);
          }

          @Override
          public void onReady() {
            listener.onReady();
          }

          @Override
          public void halfClosed() {
            listener.halfClosed();
          }

          @Override
          public void closed(Status status) {
            // The transport says OK once the server's close went out: the call ended as it said.
            Status sent = closeStatus;
            Status ended = status.isOk() && sent != null ? sent : status;
            events.report(t -> t.streamClosed(ended));
            listener.closed(status);
          }

          @Override
          public boolean resetIsOrdinary() {
            return listener.resetIsOrdinary();
          }
        });
  }

  @Override
  public void writeHeaders(Metadata headers, boolean flush) {
    events.report(ServerStreamTracer::outboundHeaders);
    delegate.writeHeaders(headers, flush);
  }

  @Override
  public void writeMessage(InputStream message) {
    int seqNo = outboundSeqNo++;
    long size = TracerEvents.knownLength(message);
    events.report(
        t -> {
          t.outboundMessage(seqNo);
          if (size >= 0) {
            t.outboundUncompressedSize(size);
          }
        });
    delegate.writeMessage(message);
  }

  @Override
  public void setDecompressor(Decompressor decompressor) {
    delegate.setDecompressor(decompressor);
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    delegate.setMaxInboundMessageSize(bytes);
  }

  @Override
  public void close(Status status, Metadata trailers) {
    closeStatus = status;
    delegate.close(status, trailers);
  }

  @Override
  public void cancel(Status status) {
    delegate.cancel(status);
  }

  @Override
  public Attributes getAttributes() {
    return delegate.getAttributes();
  }

  @Override
  public String getAuthority() {
    return delegate.getAuthority();
  }

  @Override
  public void cancelledCallFinished() {
    delegate.cancelledCallFinished();
  }

  @Override
  public HandOff handOff() {
    return delegate.handOff();
  }

  @Override
  public void request(int numMessages) {
    delegate.request(numMessages);
  }

  @Override
  public boolean requestsCrossThreads() {
    return delegate.requestsCrossThreads();
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public boolean isReady() {
    return delegate.isReady();
  }

  @Override
  public void setMessageCompression(boolean enable) {
    delegate.setMessageCompression(enable);
  }

  @Override
  public void setCompressor(Compressor compressor) {
    delegate.setCompressor(compressor);
  }

  @Override
  public String toString() {
    return "TracedServerStream{" + delegate + "}";
  }
}
