package dev.tern.internal.client;

import dev.tern.Attributes;
import dev.tern.ClientStreamTracer;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.TracerEvents;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.WireSizeListener;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A stream that tells its {@link ClientStreamTracer}s what happens to it: created, headers out,
 * each message out and in (with its uncompressed size when the message knows its length, and its
 * wire size when the transport frames it), response headers and trailers in, closed. Used only when
 * the call's options or the balancer's pick install a tracer factory, so untraced calls pay
 * nothing.
 *
 * <p>A tracer that throws is logged once for this stream and otherwise ignored: the call goes on as
 * if it had not been traced.
 *
 * <p>Thread-safety: that of the stream it wraps. Outbound events are reported from the thread
 * calling the stream, inbound ones from the listener's thread; {@code streamClosed} is reported
 * once, from the listener's {@code closed} (or from {@link #abandon}, if it never started).
 */
public final class TracedClientStream extends ForwardingClientStream {
  private static final Logger logger = Logger.getLogger(TracedClientStream.class.getName());

  private final TracerEvents<ClientStreamTracer> events;
  private final Metadata headers;
  private int outboundSeqNo; // the writing thread's

  private TracedClientStream(
      ClientStream delegate, ClientStreamTracer[] tracers, Metadata headers) {
    super(delegate);
    this.events = new TracerEvents<>(tracers);
    this.headers = headers;
  }

  /**
   * The tracers of one attempt: from the call's tracer factories then {@code balancerFactory} (may
   * be null); null if none of them returns a tracer. Asked before the attempt's stream is made, so
   * a factory may add headers to {@code headers} (a propagated trace context, for example).
   */
  public static ClientStreamTracer[] newTracers(
      ClientStreamTracer.StreamInfo info,
      Metadata headers,
      ClientStreamTracer.Factory balancerFactory) {
    List<ClientStreamTracer.Factory> factories = info.getCallOptions().getStreamTracerFactories();
    List<ClientStreamTracer> created = new ArrayList<>(factories.size() + 1);
    for (ClientStreamTracer.Factory factory : factories) {
      addTracer(created, factory, info, headers);
    }
    if (balancerFactory != null) {
      addTracer(created, balancerFactory, info, headers);
    }
    return created.isEmpty() ? null : created.toArray(new ClientStreamTracer[0]);
  }

  /** {@code stream} traced by {@code tracers} (from {@link #newTracers}, not null). */
  public static ClientStream trace(
      ClientStream stream, ClientStreamTracer[] tracers, Metadata headers) {
    return new TracedClientStream(stream, tracers, headers);
  }

  private static void addTracer(
      List<ClientStreamTracer> created,
      ClientStreamTracer.Factory factory,
      ClientStreamTracer.StreamInfo info,
      Metadata headers) {
    ClientStreamTracer tracer;
    try {
      tracer = factory.newClientStreamTracer(info, headers);
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Stream tracer factory " + factory + " threw; not tracing", e);
      return;
    }
    if (tracer != null) {
      created.add(tracer);
    }
  }

  @Override
  public void start(ClientStreamListener listener) {
    Attributes attributes = delegate.getAttributes();
    events.report(
        t -> t.streamCreated(attributes == null ? Attributes.EMPTY : attributes, headers));
    events.report(ClientStreamTracer::outboundHeaders);
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
    delegate.start(new TracingListener(listener));
  }

  /** Reports the inbound events, then passes them on. */
  private final class TracingListener implements ClientStreamListener {
    private final ClientStreamListener listener;
    private int inboundSeqNo; // the listener's thread's

    TracingListener(ClientStreamListener listener) {
      this.listener = listener;
    }

    @Override
    public void headersRead(Metadata headers) {
      events.report(t -> t.inboundHeaders(headers));
      listener.headersRead(headers);
    }

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
    public void closed(Status status, RpcProgress progress, Metadata trailers) {
      events.report(
          t -> {
            t.inboundTrailers(trailers);
            t.streamClosed(status);
          });
      listener.closed(status, progress, trailers);
    }

    @Override
    public void onReady() {
      listener.onReady();
    }
  }

  /**
   * The attempt {@code tracers} (from {@link #newTracers}, not null) were made for was refused by
   * the channel's adaptive throttling with {@code status}: they hear that, then that it closed.
   */
  public static void throttled(ClientStreamTracer[] tracers, Status status) {
    new TracerEvents<>(tracers)
        .report(
            t -> {
              t.attemptThrottled();
              t.streamClosed(status);
            });
  }

  /**
   * The attempt {@code tracers} (from {@link #newTracers}, not null) were made for was failed by
   * the balancer's pick with {@code status} (a drop, or an error for a call that does not wait):
   * they hear that it closed.
   */
  public static void pickFailed(ClientStreamTracer[] tracers, Status status) {
    new TracerEvents<>(tracers).report(t -> t.streamClosed(status));
  }

  /**
   * The stream will never be started (its call ended while it was being made): the tracers hear it
   * closed, so a balancer counting calls in flight does not count it forever.
   */
  public void abandon(Status status) {
    events.report(t -> t.streamClosed(status));
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
}
