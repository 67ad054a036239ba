package dev.tern.http3;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A UDP relay between one client and one server that plays a NAT whose mapping changes (NAT
 * rebinding): the client sends to {@link #address}, the relay forwards from an outer socket of its
 * own, and {@link #rebind} moves the forwarding to a new outer socket on another loopback address,
 * closing the old one, so the server sees the client's packets come from a new address and must
 * answer there. The server's packets that arrive on the new socket are counted ({@link
 * #packetsFromServerAtNewAddress}).
 *
 * <p>One thread (started by the constructor, stopped by {@link #close}) does all the relaying;
 * {@link #rebind} hands its request to that thread and waits for it. Thread-safe.
 */
final class RebindingUdpRelay implements Closeable {
  private final InetSocketAddress server;
  private final Selector selector;
  private final DatagramChannel front;
  private final Thread thread;
  private final AtomicReference<CompletableFuture<InetSocketAddress>> rebindRequest =
      new AtomicReference<>();
  private final AtomicLong fromServerAtNewAddress = new AtomicLong();

  /** Relay thread only. */
  private DatagramChannel outer;

  /** Relay thread only. */
  private boolean rebound;

  /** Relay thread only: where the client's packets came from. */
  private SocketAddress client;

  private volatile boolean closed;

  RebindingUdpRelay(InetSocketAddress server) throws IOException {
    this.server = server;
    selector = Selector.open();
    front = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    front.configureBlocking(false);
    front.register(selector, SelectionKey.OP_READ);
    outer = openOuter("127.0.0.1");
    thread = new Thread(this::run, "udp-relay");
    thread.setDaemon(true);
    thread.start();
  }

  /** Where the client sends. */
  InetSocketAddress address() throws IOException {
    return (InetSocketAddress) front.getLocalAddress();
  }

  /**
   * Moves forwarding to a new outer socket on 127.0.0.2 and closes the old one; returns the new
   * address the server sees.
   */
  InetSocketAddress rebind() throws Exception {
    CompletableFuture<InetSocketAddress> done = new CompletableFuture<>();
    if (!rebindRequest.compareAndSet(null, done)) {
      throw new IllegalStateException("a rebind is under way");
    }
    selector.wakeup();
    return done.get(10, TimeUnit.SECONDS);
  }

  /** The server's packets that reached the outer socket opened by {@link #rebind}. */
  long packetsFromServerAtNewAddress() {
    return fromServerAtNewAddress.get();
  }

  private DatagramChannel openOuter(String host) throws IOException {
    DatagramChannel channel = DatagramChannel.open().bind(new InetSocketAddress(host, 0));
    channel.configureBlocking(false);
    channel.register(selector, SelectionKey.OP_READ);
    return channel;
  }

  private void run() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
    try {
      while (!closed) {
        selector.select();
        CompletableFuture<InetSocketAddress> request = rebindRequest.get();
        if (request != null) {
          try {
            DatagramChannel old = outer;
            outer = openOuter("127.0.0.2");
            rebound = true;
            old.close();
            request.complete((InetSocketAddress) outer.getLocalAddress());
          } catch (IOException e) {
            request.completeExceptionally(e);
          }
          rebindRequest.set(null);
        }
        for (SelectionKey key : selector.selectedKeys()) {
          if (!key.isValid()) {
            continue;
          }
          DatagramChannel from = (DatagramChannel) key.channel();
          buffer.clear();
          SocketAddress sender = from.receive(buffer);
          if (sender == null) {
            continue;
          }
          buffer.flip();
          if (from == front) {
            client = sender;
            outer.send(buffer, server);
          } else if (from == outer && client != null) {
            if (rebound) {
              fromServerAtNewAddress.incrementAndGet();
            }
            front.send(buffer, client);
          }
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException e) {
      if (!closed) {
        throw new IllegalStateException("relay failed", e);
      }
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    selector.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    outer.close();
    front.close();
    selector.close();
  }
}
