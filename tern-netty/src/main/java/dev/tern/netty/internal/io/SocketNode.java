package dev.tern.netty.internal.io;

import dev.tern.channelz.CallStats;
import dev.tern.channelz.Channelz;
import dev.tern.channelz.InstrumentedSocket;
import dev.tern.channelz.SocketStats;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslHandler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.InvalidPathException;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * One connection (or listening socket) as channelz sees it: counters of streams, messages and
 * keepalives, touched by the handler on the connection's event loop, and its addresses and TLS
 * session, read from the Netty channel when a snapshot is taken.
 *
 * <p>Thread-safety: the counters have one writer, the event loop, which updates them in opaque mode
 * (atomic plain stores: no fence, no lock, on the path of every stream and message); {@link
 * #channelzStats()} reads them in opaque mode from any thread, so a snapshot sees each counter
 * whole but the counters need not agree with each other (a stream may be counted started and its
 * message not yet, while it is in flight). That is enough for monitoring, and cheaper than hopping
 * onto the event loop for every snapshot. Only the flow-control windows, which Netty keeps confined
 * to the event loop, are read there, by a task the snapshot waits for briefly. The channel is
 * volatile, set once it exists; Netty's addresses and pipeline may be read from any thread.
 */
public final class SocketNode implements InstrumentedSocket {
  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);

  private static final int STREAMS_STARTED = 0;
  private static final int STREAMS_SUCCEEDED = 1;
  private static final int STREAMS_FAILED = 2;
  private static final int MESSAGES_SENT = 3;
  private static final int MESSAGES_RECEIVED = 4;
  private static final int KEEPALIVES_SENT = 5;
  private static final int LAST_LOCAL_STREAM = 6;
  private static final int LAST_REMOTE_STREAM = 7;
  private static final int LAST_MESSAGE_SENT = 8;
  private static final int LAST_MESSAGE_RECEIVED = 9;
  private static final int SLOT_COUNT = 10;

  /** How long a snapshot waits for the event loop to read the flow-control windows. */
  private static final long WINDOWS_WAIT_MILLIS = 200;

  private final long id = Channelz.allocateId();
  private final String kind;
  private final long[] slots = new long[SLOT_COUNT];
  private volatile Channel channel;
  private volatile Supplier<long[]> windows;

  /**
   * @param kind what the socket is, for its name ("client", "server", "listen")
   */
  public SocketNode(String kind) {
    this.kind = kind;
  }

  /**
   * The Netty channel, once it exists; registers the node with channelz.
   *
   * @param windows reads the connection's flow-control windows on its event loop (what this side
   *     may send, what the peer may send), or null (a listening socket)
   */
  public void register(Channel channel, Supplier<long[]> windows) {
    this.channel = channel;
    this.windows = windows;
    Channelz.global().addSocket(this);
  }

  /** Unregisters the node: the connection or listening socket is closed. */
  public void unregister() {
    Channelz.global().removeSocket(this);
  }

  // ---- on the event loop

  /** A stream was opened: by this side ({@code local}) or by the peer. */
  public void streamStarted(boolean local) {
    add(STREAMS_STARTED, 1);
    SLOTS.setOpaque(slots, local ? LAST_LOCAL_STREAM : LAST_REMOTE_STREAM, now());
  }

  /** A stream counted by {@link #streamStarted} ended, well ({@code ok}) or not. */
  public void streamEnded(boolean ok) {
    add(ok ? STREAMS_SUCCEEDED : STREAMS_FAILED, 1);
  }

  /** {@code count} messages went to the connection. */
  public void messagesSent(int count) {
    if (count > 0) {
      add(MESSAGES_SENT, count);
      SLOTS.setOpaque(slots, LAST_MESSAGE_SENT, now());
    }
  }

  /** A whole message arrived. */
  public void messageReceived() {
    add(MESSAGES_RECEIVED, 1);
    SLOTS.setOpaque(slots, LAST_MESSAGE_RECEIVED, now());
  }

  /** A keepalive PING was sent. */
  public void keepAliveSent() {
    add(KEEPALIVES_SENT, 1);
  }

  private void add(int slot, long delta) {
    SLOTS.setOpaque(slots, slot, (long) SLOTS.getOpaque(slots, slot) + delta);
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  // ---- any thread

  @Override
  public long channelzId() {
    return id;
  }

  @Override
  public String channelzName() {
    Channel ch = channel;
    if (ch == null) {
      return kind;
    }
    SocketAddress remote = ch.remoteAddress();
    return kind + " " + ch.localAddress() + (remote == null ? "" : " <-> " + remote);
  }

  @Override
  public CallStats streamCounts() {
    return new CallStats(
        read(STREAMS_STARTED),
        read(STREAMS_SUCCEEDED),
        read(STREAMS_FAILED),
        time(LAST_LOCAL_STREAM));
  }

  @Override
  public SocketStats channelzStats() {
    Channel ch = channel;
    long[] flow = ch == null ? null : flowControlWindows(ch);
    return new SocketStats(
        ch == null ? null : address(ch.localAddress()),
        ch == null ? null : address(ch.remoteAddress()),
        read(STREAMS_STARTED),
        read(STREAMS_SUCCEEDED),
        read(STREAMS_FAILED),
        read(MESSAGES_SENT),
        read(MESSAGES_RECEIVED),
        read(KEEPALIVES_SENT),
        time(LAST_LOCAL_STREAM),
        time(LAST_REMOTE_STREAM),
        time(LAST_MESSAGE_SENT),
        time(LAST_MESSAGE_RECEIVED),
        flow == null ? -1 : flow[0],
        flow == null ? -1 : flow[1],
        ch == null ? null : tls(ch),
        ch == null ? Map.of() : options(ch));
  }

  /**
   * The Netty channel's options, as text; none once it is closed. A closed NIO socket answers each
   * option it is asked for with an exception (two per connection retired by its subchannel, and
   * their stack traces), so a closed channel is not asked.
   */
  private static Map<String, String> options(Channel ch) {
    if (!ch.isOpen()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>();
    try {
      for (Map.Entry<ChannelOption<?>, Object> option : ch.config().getOptions().entrySet()) {
        out.put(option.getKey().name(), String.valueOf(option.getValue()));
      }
    } catch (RuntimeException e) {
      // A socket closed meanwhile refuses to be asked: report no options.
      return Map.of();
    }
    return out;
  }

  /**
   * The flow-control windows, read on the event loop (Netty's flow controllers are confined to it):
   * at once when called there, else by a task the caller waits for at most {@value
   * #WINDOWS_WAIT_MILLIS} ms; null if the connection is closed or the loop too busy to answer.
   */
  private long[] flowControlWindows(Channel ch) {
    Supplier<long[]> source = windows;
    if (source == null || !ch.isActive()) {
      return null;
    }
    EventLoop loop = ch.eventLoop();
    if (loop.inEventLoop()) {
      return source.get();
    }
    try {
      return loop.submit(source::get).get(WINDOWS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return null; // closed meanwhile, or shutting down: no windows to report
    }
  }

  /**
   * {@code address}, with Netty's Unix domain socket address as the JDK's (so that readers need not
   * know Netty's type); an abstract-namespace name, which has no path, stays as it is.
   */
  private static SocketAddress address(SocketAddress address) {
    if (address == null
        || address instanceof UnixDomainSocketAddress
        || !DomainSockets.isDomainSocket(address)) {
      return address;
    }
    try {
      return UnixDomainSocketAddress.of(address.toString());
    } catch (InvalidPathException e) {
      return address;
    }
  }

  private long read(int slot) {
    return (long) SLOTS.getOpaque(slots, slot);
  }

  private Instant time(int slot) {
    long millis = read(slot);
    return millis == 0 ? null : Instant.ofEpochMilli(millis);
  }

  /** The TLS session once its handshake is done, or null. */
  private static SocketStats.Tls tls(Channel ch) {
    SslHandler ssl = ch.pipeline().get(SslHandler.class);
    if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
      return null;
    }
    SSLSession session = ssl.engine().getSession();
    Certificate[] local = session.getLocalCertificates();
    Certificate remote = null;
    try {
      Certificate[] peer = session.getPeerCertificates();
      remote = peer.length > 0 ? peer[0] : null;
    } catch (SSLPeerUnverifiedException e) {
      // No client certificate (a server socket without mutual TLS).
    }
    return new SocketStats.Tls(
        session.getCipherSuite(), local != null && local.length > 0 ? local[0] : null, remote);
  }

  @Override
  public String toString() {
    return "SocketNode{" + id + ", " + channelzName() + "}";
  }
}
