package dev.tern.netty.internal.client;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.netty.internal.io.SocketNode;
import dev.tern.spi.ClientTransport.PingCallback;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.util.AsciiString;
import java.util.concurrent.Executor;

/**
 * The event-loop end of one client connection, as the calls ({@link NettyClientStream}, {@link
 * ClientStreamState}) and the {@link NettyClientTransport} see it, whichever HTTP/2 implementation
 * carries it: {@link ClientHandler} on Netty's HTTP/2 codec, or {@link EngineClientHandler} on
 * Tern's own engine. gRPC's semantics of a call stay in the two halves of the stream; what goes on
 * the wire is the connection's.
 *
 * <p>Thread-safety: {@link #prepareStream} runs on the application's thread and must only build
 * what it needs from its arguments; every other method runs on the connection's event loop.
 */
interface ClientConnection extends ChannelHandler {
  /**
   * On the application's thread: builds the request headers of {@code state}'s call from {@code
   * headers} (read, not kept) and returns the command that opens the stream on the event loop.
   */
  Runnable prepareStream(
      ClientStreamState state,
      AsciiString scheme,
      AsciiString path,
      AsciiString authority,
      AsciiString userAgent,
      Metadata headers);

  /** Writes framed bytes of {@code state}; takes ownership of {@code data}. */
  void sendData(
      ClientStreamState state, ByteBuf data, boolean endOfStream, int bytes, int messages);

  /** The application cancelled: RST_STREAM(CANCEL) and report {@code status}. */
  default void cancelStream(ClientStreamState state, Status status) {
    assert inEventLoop();
    if (state.isClosed()) {
      return;
    }
    state.cancel(status);
    resetStream(state);
  }

  /** Sends RST_STREAM(CANCEL) for {@code state}'s stream, if it is open on the wire. */
  void resetStream(ClientStreamState state);

  /** The server ended the stream; if this side has not, reset it so both ends free it now. */
  void onEndOfStreamReceived(ClientStreamState state);

  /** The application took {@code bytes} of a stream's DATA: flow-control credit goes back. */
  void consumed(int streamId, int bytes);

  boolean inEventLoop();

  /** The connection's channelz counters. */
  SocketNode socketNode();

  /** A measured PING. */
  void ping(PingCallback callback, Executor executor);

  /** Refuses new streams; closes the connection once the streams in flight are done. */
  void startShutdown(Status status);

  /** Shuts down and fails every stream in flight with {@code status}. */
  void shutdownNow(Status status);

  /** The connection attempt failed (or was abandoned): the transport is over. */
  void connectFailed(Throwable cause);

  /** What this side may still send and the peer may still send on the connection, in bytes. */
  long[] flowControlWindows();
}
