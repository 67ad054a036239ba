package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.HandOff;
import dev.tern.spi.ManagedClientTransport;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A client transport driven by the test: it records the streams it makes, and the test reports its
 * life events ({@link #ready()}, {@link #failToConnect}, {@link #goAway}). Like a real transport it
 * reports {@code transportInUse} as streams start and close, refuses streams after shutdown ({@code
 * DROPPED}) and terminates once shut down with no stream left. Callbacks run on the thread of the
 * call that caused them, with no lock held.
 *
 * <p>Thread-safe.
 */
public final class FakeClientTransport implements ManagedClientTransport {
  public final SocketAddress address;
  public final String authority;
  public final String userAgent;
  private final List<FakeClientStream> streams = new ArrayList<>();
  private volatile Attributes attributes = Attributes.EMPTY;
  private volatile Listener listener;
  private Status shutdownStatus;
  private Status shutdownNowStatus;
  private boolean shutdownReported;
  private boolean terminated;
  private int activeStreams;

  /** Optional task returned from start(), e.g. to report ready the way in-process does. */
  private volatile Runnable startTask;

  /** What the streams made from now on answer to {@link ClientStream#handOff}. */
  public volatile HandOff streamHandOff = HandOff.DIRECT;

  public FakeClientTransport(SocketAddress address, String authority, String userAgent) {
    this.address = address;
    this.authority = authority;
    this.userAgent = userAgent;
  }

  @Override
  public Runnable start(Listener listener) {
    if (this.listener != null) {
      throw new AssertionError("transport started twice");
    }
    this.listener = listener;
    return startTask;
  }

  public void setStartTask(Runnable task) {
    this.startTask = task;
  }

  public boolean isStarted() {
    return listener != null;
  }

  public void setAttributes(Attributes attributes) {
    this.attributes = attributes;
  }

  /** Reports the connection as established. */
  public void ready() {
    listener.transportReady();
  }

  /** Reports a failed connection attempt: shutdown with {@code status}, then terminated. */
  public void failToConnect(Status status) {
    synchronized (this) {
      shutdownReported = true;
      terminated = true;
    }
    listener.transportShutdown(status);
    listener.transportTerminated();
  }

  /** The peer stops accepting streams (GOAWAY); the transport terminates once none remain. */
  public void goAway(Status status) {
    boolean report;
    synchronized (this) {
      if (shutdownStatus == null) {
        shutdownStatus = status;
      }
      report = !shutdownReported;
      shutdownReported = true;
    }
    if (report) {
      listener.transportShutdown(status);
    }
    maybeTerminate();
  }

  @Override
  public ClientStream newStream(
      MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
    FakeClientStream stream = new FakeClientStream(this, method, headers, callOptions);
    synchronized (this) {
      streams.add(stream);
    }
    return stream;
  }

  @Override
  public void ping(PingCallback callback, Executor executor) {
    boolean down;
    synchronized (this) {
      down = shutdownStatus != null;
    }
    executor.execute(
        () -> {
          if (down) {
            callback.onFailure(Status.UNAVAILABLE.withDescription("transport shut down"));
          } else {
            callback.onSuccess(0);
          }
        });
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public void shutdown(Status reason) {
    goAway(reason);
  }

  @Override
  public void shutdownNow(Status reason) {
    List<FakeClientStream> toCancel;
    synchronized (this) {
      shutdownNowStatus = reason;
      toCancel = new ArrayList<>(streams);
    }
    goAway(reason);
    for (FakeClientStream stream : toCancel) {
      stream.cancel(reason);
    }
  }

  public synchronized Status shutdownStatus() {
    return shutdownStatus;
  }

  public synchronized Status shutdownNowStatus() {
    return shutdownNowStatus;
  }

  public synchronized boolean isShutdown() {
    return shutdownStatus != null;
  }

  public synchronized boolean isTerminated() {
    return terminated;
  }

  public synchronized int streamCount() {
    return streams.size();
  }

  public synchronized FakeClientStream stream(int index) {
    return streams.get(index);
  }

  public synchronized FakeClientStream lastStream() {
    if (streams.isEmpty()) {
      throw new AssertionError("no stream was created on " + this);
    }
    return streams.get(streams.size() - 1);
  }

  /** Called by a stream when it starts; false if the transport no longer takes streams. */
  public boolean streamStarted() {
    boolean nowInUse;
    synchronized (this) {
      if (shutdownStatus != null) {
        return false;
      }
      nowInUse = activeStreams++ == 0;
    }
    if (nowInUse) {
      listener.transportInUse(true);
    }
    return true;
  }

  /** Called by a started stream when it closes. */
  public void streamClosed() {
    boolean nowIdle;
    synchronized (this) {
      nowIdle = --activeStreams == 0;
    }
    if (nowIdle) {
      listener.transportInUse(false);
    }
    maybeTerminate();
  }

  private void maybeTerminate() {
    synchronized (this) {
      if (terminated || shutdownStatus == null || activeStreams > 0) {
        return;
      }
      terminated = true;
    }
    listener.transportTerminated();
  }

  @Override
  public String toString() {
    return "FakeClientTransport@" + Integer.toHexString(System.identityHashCode(this));
  }
}
