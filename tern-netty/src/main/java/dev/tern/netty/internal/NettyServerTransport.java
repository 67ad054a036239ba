package dev.tern.netty.internal;

import dev.tern.Status;
import dev.tern.channelz.Instrumented;
import dev.tern.channelz.SocketStats;
import dev.tern.spi.ServerTransport;
import io.netty.channel.Channel;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One accepted server connection, as the runtime sees it. Its {@link ServerHandler} does the work
 * on the channel's event loop; this class forwards lifecycle requests there through the
 * connection's {@link WriteQueue}.
 *
 * <p>Thread-safe: every method may be called from any thread; the fields are final.
 */
final class NettyServerTransport implements ServerTransport {
  private final Channel channel;
  private final WriteQueue writeQueue;
  private final ServerHandler handler;
  private final SocketNode socket = new SocketNode("server");

  NettyServerTransport(Channel channel, ServerOptions options) {
    this.channel = channel;
    this.writeQueue = new WriteQueue(channel);
    this.handler = ServerHandler.create(this, options);
    socket.register(channel, handler::flowControlWindows);
    channel.closeFuture().addListener(f -> socket.unregister());
  }

  /** The connection's channelz counters (touched on the event loop). */
  SocketNode socketNode() {
    return socket;
  }

  /** Registered with channelz while the connection is open. */
  @Override
  public Instrumented<SocketStats> channelzSocket() {
    return socket;
  }

  ServerHandler handler() {
    return handler;
  }

  void execute(Runnable command) {
    writeQueue.enqueue(command);
  }

  /** Like {@link #execute}, but the command waits for the next drain (see {@link WriteQueue}). */
  void executeWithNext(Runnable command) {
    writeQueue.enqueueWithoutDrain(command);
  }

  @Override
  public void shutdown() {
    handler.markShutdownRequested();
    execute(handler::gracefulShutdown);
  }

  @Override
  public void shutdownNow(Status reason) {
    Objects.requireNonNull(reason, "reason");
    handler.markShutdownRequested();
    execute(() -> handler.shutdownNow(reason));
  }

  /** The connection's event loop: deadlines then fire on the thread that owns the stream. */
  @Override
  public ScheduledExecutorService getScheduledExecutorService() {
    return channel.eventLoop();
  }

  @Override
  public String toString() {
    return "NettyServerTransport{" + channel.remoteAddress() + "}";
  }
}
