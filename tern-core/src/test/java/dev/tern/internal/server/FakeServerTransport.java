package dev.tern.internal.server;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import dev.tern.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A server connection a test drives by hand: {@link #ready}, {@link #newStream}, {@link
 * #terminate}. {@link #shutdownNow} cancels the open streams, as a transport would; {@link
 * #shutdown} only records the request.
 *
 * <p>Not thread-safe beyond volatile fields: tests drive it from one thread.
 */
public final class FakeServerTransport implements ServerTransport {
  private final FakeClock scheduler;
  public volatile ServerTransportListener listener;
  public volatile Attributes readyAttributes;
  public volatile boolean shutdownCalled;
  public volatile Status shutdownNowStatus;
  public volatile boolean terminated;

  /** The hand-off the next streams report (see {@link ServerStream#handOff}). */
  public volatile HandOff handOff = HandOff.DIRECT;

  public final List<FakeServerStream> streams = new ArrayList<>();

  public FakeServerTransport(FakeClock scheduler) {
    this.scheduler = scheduler;
  }

  /** The handshake finished: runs the filters and keeps the attributes they returned. */
  public Attributes ready(Attributes transportAttributes) {
    readyAttributes = listener.transportReady(transportAttributes);
    return readyAttributes;
  }

  /** A call for {@code fullMethodName} arrives; the runtime must set the listener. */
  public FakeServerStream newStream(String fullMethodName, Metadata headers) {
    return newStream(fullMethodName, headers, "example.com");
  }

  /** Like {@link #newStream(String, Metadata)} with an explicit {@code :authority}. */
  public FakeServerStream newStream(String fullMethodName, Metadata headers, String authority) {
    FakeServerStream stream =
        new FakeServerStream(
            readyAttributes != null ? readyAttributes : Attributes.EMPTY, authority);
    stream.handOff = handOff;
    streams.add(stream);
    listener.streamCreated(stream, fullMethodName, headers);
    if (stream.listener == null) {
      throw new AssertionError("streamCreated returned without setting a stream listener");
    }
    return stream;
  }

  /** The connection is gone. */
  public void terminate() {
    if (terminated) {
      throw new AssertionError("terminated twice");
    }
    terminated = true;
    listener.transportTerminated();
  }

  @Override
  public void shutdown() {
    shutdownCalled = true;
  }

  @Override
  public void shutdownNow(Status reason) {
    shutdownCalled = true;
    shutdownNowStatus = reason;
    for (FakeServerStream stream : new ArrayList<>(streams)) {
      if (!stream.isClosedReported()) {
        stream.cancel(reason);
      }
    }
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return scheduler;
  }
}
