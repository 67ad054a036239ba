package dev.tern.testing;

import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Plays the server runtime for a {@link dev.tern.spi.TransportServer}: each accepted transport gets
 * a {@link RecordingServerTransportListener}. Thread-safe.
 */
public final class RecordingServerListener implements ServerListener {
  private final BlockingQueue<RecordingServerTransportListener> newTransports =
      new LinkedBlockingQueue<>();
  private final List<RecordingServerTransportListener> allTransports =
      Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch serverShutdown = new CountDownLatch(1);
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private volatile int maxInboundMessageSize = GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE;
  private volatile Consumer<RecordingServerTransportListener> configureTransport = transport -> {};

  /** The inbound message limit given to streams of transports accepted from now on. */
  public void setMaxInboundMessageSize(int bytes) {
    this.maxInboundMessageSize = bytes;
  }

  /**
   * Runs {@code configure} on the listener of each transport accepted from now on, before it is
   * returned to the transport (so before {@code transportReady}): for settings such as {@link
   * RecordingServerTransportListener#rejectWhenReady} that must be in place when the first event
   * comes.
   */
  public void configureTransports(Consumer<RecordingServerTransportListener> configure) {
    this.configureTransport = configure;
  }

  @Override
  public ServerTransportListener transportCreated(ServerTransport transport) {
    if (transport == null) {
      violations.add("transportCreated with a null transport");
    }
    if (serverShutdown.getCount() == 0) {
      violations.add("transportCreated after serverShutdown");
    }
    RecordingServerTransportListener listener =
        new RecordingServerTransportListener(transport, maxInboundMessageSize);
    configureTransport.accept(listener);
    allTransports.add(listener);
    newTransports.add(listener);
    return listener;
  }

  @Override
  public void serverShutdown() {
    if (serverShutdown.getCount() == 0) {
      violations.add("serverShutdown called twice");
    }
    serverShutdown.countDown();
  }

  /** Waits for the next accepted transport. */
  public RecordingServerTransportListener awaitTransport() {
    return Await.poll(newTransports, "the server to accept a transport");
  }

  /** Every transport accepted so far. */
  public List<RecordingServerTransportListener> transports() {
    synchronized (allTransports) {
      return List.copyOf(allTransports);
    }
  }

  /** Waits for {@code serverShutdown}. */
  public void awaitShutdown() {
    Await.await(serverShutdown, "the transport server to shut down");
  }

  /** Whether {@code serverShutdown} was called. */
  public boolean isShutdown() {
    return serverShutdown.getCount() == 0;
  }

  /** Contract breaches of the server, its transports and their streams. */
  public List<String> violations() {
    List<String> all = new ArrayList<>(violations);
    for (RecordingServerTransportListener transport : transports()) {
      all.addAll(transport.violations());
    }
    return all;
  }
}
