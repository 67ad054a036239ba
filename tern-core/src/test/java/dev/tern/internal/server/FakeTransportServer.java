package dev.tern.internal.server;

import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerTransportListener;
import dev.tern.spi.TransportServer;
import dev.tern.testing.FakeClock;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A listening transport a test drives by hand: {@link #accept()} makes a connection; {@link
 * #shutdown} reports {@code serverShutdown} at once unless {@link #holdShutdownReport} was set.
 *
 * <p>Not thread-safe beyond volatile fields: tests drive it from one thread.
 */
public final class FakeTransportServer implements TransportServer {
  public final FakeClock scheduler = newScheduler();
  public final List<FakeServerTransport> transports = new ArrayList<>();
  public volatile ServerListener listener;
  public volatile List<SocketAddress> listenAddresses = List.of();
  public volatile IOException startFailure;
  public volatile boolean holdShutdownReport;
  public volatile int startCount;

  /** Runs inside {@link #start}, after the listener is stored; null for nothing. */
  public volatile Runnable duringStart;

  public volatile int shutdownCount;

  private static FakeClock newScheduler() {
    FakeClock clock = new FakeClock();
    // A timer task that throws fails the test at the forwardTime that ran it.
    clock.setRethrowTaskFailures(true);
    return clock;
  }

  /** A client connects: returns the connection, not yet ready. */
  public FakeServerTransport accept() {
    FakeServerTransport transport = new FakeServerTransport(scheduler);
    ServerTransportListener transportListener = listener.transportCreated(transport);
    if (transportListener == null) {
      throw new AssertionError("transportCreated returned null");
    }
    transport.listener = transportListener;
    transports.add(transport);
    return transport;
  }

  /** Reports {@code serverShutdown}, for tests that held it back. */
  public void reportServerShutdown() {
    listener.serverShutdown();
  }

  @Override
  public void start(ServerListener listener) throws IOException {
    startCount++;
    if (startFailure != null) {
      throw startFailure;
    }
    this.listener = listener;
    if (duringStart != null) {
      duringStart.run();
    }
  }

  @Override
  public void shutdown() {
    shutdownCount++;
    if (!holdShutdownReport && shutdownCount == 1) {
      listener.serverShutdown();
    }
  }

  @Override
  public List<? extends SocketAddress> getListenSocketAddresses() {
    return listenAddresses;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return scheduler;
  }
}
