package dev.tern.internal.channel;

import dev.tern.spi.ClientTransportFactory;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.testing.FakeClock;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/** Makes {@link FakeClientTransport}s and remembers them, in creation order. Thread-safe. */
final class FakeClientTransportFactory implements ClientTransportFactory {
  final FakeClock clock;
  private final List<FakeClientTransport> transports = new ArrayList<>();
  private volatile boolean closed;
  private volatile boolean readyOnStart;
  private volatile boolean requestsCrossThreads;

  FakeClientTransportFactory(FakeClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized ManagedClientTransport newClientTransport(
      SocketAddress address, String authority, String userAgent) {
    FakeClientTransport transport = new FakeClientTransport(address, authority, userAgent);
    if (readyOnStart) {
      transport.setStartTask(transport::ready);
    }
    transports.add(transport);
    return transport;
  }

  @Override
  public boolean requestsCrossThreads() {
    return requestsCrossThreads;
  }

  /** Makes the channel treat requests as crossing threads, so streaming calls read ahead. */
  void setRequestsCrossThreads(boolean requestsCrossThreads) {
    this.requestsCrossThreads = requestsCrossThreads;
  }

  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return clock;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** Makes later transports report ready from the task their start() returns (in-process style). */
  void setReadyOnStart(boolean readyOnStart) {
    this.readyOnStart = readyOnStart;
  }

  boolean isClosed() {
    return closed;
  }

  synchronized int transportCount() {
    return transports.size();
  }

  synchronized FakeClientTransport transport(int index) {
    return transports.get(index);
  }

  /** The most recently created transport. */
  synchronized FakeClientTransport last() {
    if (transports.isEmpty()) {
      throw new AssertionError("no transport was created");
    }
    return transports.get(transports.size() - 1);
  }
}
