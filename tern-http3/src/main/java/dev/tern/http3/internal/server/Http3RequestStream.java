package dev.tern.http3.internal.server;

import dev.tern.Codec;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Exception;
import dev.tern.http3.internal.frame.Http3FrameReader;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.http3.internal.frame.QpackDecoder;
import dev.tern.internal.wire.MessageDeframer;
import dev.tern.netty.internal.buffer.NettyReadableBuffer;
import dev.tern.netty.internal.buffer.NettyWritableBufferAllocator;
import dev.tern.netty.internal.grpc.GrpcFields;
import dev.tern.netty.internal.server.RequestHeaders;
import dev.tern.netty.internal.server.RequestRefusal;
import dev.tern.netty.internal.server.UnreadResponseLimits;
import dev.tern.spi.ServerStreamListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelOutputShutdownException;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/**
 * The event-loop half of one gRPC call on an HTTP/3 request stream (RFC 9114 section 4.1): reads
 * its frames (HEADERS, DATA, optional trailing HEADERS, then the stream's FIN), checks the request
 * as HTTP/2's server does ({@link RequestHeaders}, {@link RequestRefusal}), starts the call, owns
 * the deframer, writes response headers, DATA and trailers (with FIN), and ends the call exactly
 * once. The application half is {@link Http3ServerStream}.
 *
 * <p>Errors map as on HTTP/2: the client's RESET_STREAM (a cancel or its deadline) ends the call
 * CANCELLED; a server-side abort sends trailers with the status, then STOP_SENDING if the client is
 * still sending; a malformed request is reset with H3_MESSAGE_ERROR; a request whose headers exceed
 * the metadata limit gets HTTP 431 with RESOURCE_EXHAUSTED. The stream reads no more while 1 MiB of
 * its request waits undelivered (the application has not asked for it), so QUIC's flow control
 * holds the client back.
 *
 * <p>Event loop only: every method runs on the stream channel's event loop.
 */
final class Http3RequestStream extends ChannelInboundHandlerAdapter
    implements Http3FrameReader.Listener, MessageDeframer.Listener {
  /** Undelivered request bytes past which the stream stops reading. */
  static final int READ_WINDOW = 1024 * 1024;

  private final Http3ServerConnection connection;
  private final QuicStreamChannel channel;
  private final Http3FrameReader reader;
  private MessageDeframer deframer;
  private Http3ServerStream stream;
  private ServerStreamListener listener;
  private boolean headersReceived;
  private boolean trailersReceived;
  private boolean endOfStreamReceived;
  private boolean responded;
  private boolean headersSent;
  private boolean dataSent;
  private boolean trailersSent;
  private boolean closed;
  private int undeliveredBytes;
  private boolean readPaused;

  /** Whether a response frame went since the last {@link #probe} (or since the request ended). */
  private boolean wroteSinceProbe;

  /** Whether the call waits in the connection's {@link StopSendingProbe}. */
  private boolean probed;

  Http3RequestStream(Http3ServerConnection connection, QuicStreamChannel channel) {
    this.connection = connection;
    this.channel = channel;
    int metadataLimit = connection.options().maxInboundMetadataSize();
    // Encoded sections are at most a little longer than their decoded size (literals without
    // Huffman coding); a longer one is over the limit however it decodes.
    this.reader =
        new Http3FrameReader(Http3FrameReader.Kind.REQUEST, this, 2 * metadataLimit + 1024);
  }

  /**
   * The first read waits for the stream to be active, not for this handler to be added: that
   * happens inside the stream initializer, which would still be first in the pipeline to hear a
   * read's error, and a stream the client reset in the packet that opened it fails its first read
   * (Netty's initializer would log a warning with a stack trace per stream; here it is a cancel).
   */
  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    channel.read();
    ctx.fireChannelActive();
  }

  // ---- inbound bytes

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      reader.receive(in);
    } catch (Http3Exception e) {
      fail(e);
    } finally {
      in.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (undeliveredBytes < READ_WINDOW) {
      channel.read();
    } else {
      readPaused = true;
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      onFin();
    }
    ctx.fireUserEventTriggered(evt);
  }

  private void onFin() {
    if (endOfStreamReceived) {
      return;
    }
    endOfStreamReceived = true;
    if (reader.insideFrame()) {
      fail(Http3Exception.connection(Http3Errors.H3_FRAME_ERROR, "request ended inside a frame"));
    } else if (!headersReceived) {
      fail(Http3Exception.stream(Http3Errors.H3_REQUEST_INCOMPLETE, "request without headers"));
    } else if (deframer != null && !closed) {
      deframer.closeWhenComplete();
      if (!closed && !trailersSent) {
        // From now on only STOP_SENDING tells of the client's cancel.
        wroteSinceProbe = true;
        probed = true;
        connection.stopSendingProbe().add(this);
      }
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof QuicStreamResetException reset) {
      boolean ordinary = resetIsOrdinary();
      closeNow(
          Status.CANCELLED.withDescription(
              "client cancelled (RESET_STREAM "
                  + Http3Errors.name(reset.applicationProtocolCode())
                  + ")"));
      channel.close();
      connection.clientReset(ordinary);
      return;
    }
    closeNow(Status.UNAVAILABLE.withDescription("HTTP/3 stream failed").withCause(cause));
    channel.close();
  }

  /**
   * Whether the client's reset of this stream now is ordinary traffic rather than part of a rapid
   * reset, by HTTP/2's rule: a response message, the trailers or a refusal went out (the client
   * cancels a call it had an answer on), or the runtime calls the reset ordinary ({@code
   * ServerStreamListener.resetIsOrdinary}: the client's deadline expiring, or a call with a
   * deadline still queued for the executor).
   */
  private boolean resetIsOrdinary() {
    return dataSent
        || trailersSent
        || responded
        || (listener != null && !closed && listener.resetIsOrdinary());
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    reader.release();
    closeNow(
        trailersSent
            ? Status.UNAVAILABLE.withDescription("HTTP/3 stream closed before the trailers went")
            : connection.closeStatus());
    ctx.fireChannelInactive();
  }

  private void fail(Http3Exception e) {
    if (e.connectionError()) {
      connection.connectionError(e);
      return;
    }
    channel.shutdown((int) e.code());
    closeNow(Status.INTERNAL.withDescription("HTTP/3 stream error: " + e.getMessage()));
    connection.serverReset();
  }

  /**
   * A round of the connection's {@link StopSendingProbe}: a call that wrote nothing since the last
   * round writes a reserved frame (two bytes, which the client ignores), which tells whether the
   * client stopped the stream. While the server's reply to its STOP_SENDING (a RESET_STREAM) is
   * unacknowledged, quiche fails the write; once it is, quiche has forgotten the stream (its
   * request was read whole and its response reset) and holds the write back as if the connection
   * could send nothing, but cannot say how much the stream could send, so the codec keeps its last,
   * positive figure ({@code bytesBeforeUnwritable}) where a stream held back by flow control or
   * congestion reads zero. Either way the call ends as a cancel. A stream whose writes already wait
   * is not probed: the client's STOP_SENDING fails them.
   */
  void probe() {
    if (closed || trailersSent) {
      return;
    }
    if (wroteSinceProbe) {
      wroteSinceProbe = false;
      return;
    }
    if (!channel.isWritable()) {
      return;
    }
    ByteBuf out = channel.alloc().buffer(2);
    Http3Frames.writeFrameHeader(out, Http3Frames.RESERVED, 0);
    ChannelFuture sent = channel.writeAndFlush(out);
    if (!sent.isDone() && !channel.isWritable() && channel.bytesBeforeUnwritable() > 0) {
      clientStopped();
      return;
    }
    sent.addListener(
        f -> {
          if (!f.isSuccess()) {
            writeFailed(f.cause());
          }
        });
  }

  // ---- frames

  @Override
  public void onHeaders(ByteBuf block) throws Http3Exception {
    if (!headersReceived) {
      headersReceived = true;
      onRequestHeaders(block);
      return;
    }
    if (trailersReceived) {
      throw Http3Exception.connection(
          Http3Errors.H3_FRAME_UNEXPECTED, "a frame after the request's trailers");
    }
    trailersReceived = true;
    RequestHeaders trailers = new RequestHeaders(true);
    decoder().decode(block, trailers);
    if (trailers.malformed() != null) {
      throw Http3Exception.stream(Http3Errors.H3_MESSAGE_ERROR, trailers.malformed());
    }
  }

  @Override
  public void onHeadersTooLarge(long length) throws Http3Exception {
    if (headersReceived) {
      throw Http3Exception.stream(
          Http3Errors.H3_EXCESSIVE_LOAD, "request trailers of " + length + " bytes");
    }
    headersReceived = true;
    refuseTooLarge();
  }

  private QpackDecoder decoder() {
    return new QpackDecoder(connection.options().maxInboundMetadataSize());
  }

  private void onRequestHeaders(ByteBuf block) throws Http3Exception {
    RequestHeaders request = new RequestHeaders(false);
    if (!decoder().decode(block, request)) {
      refuseTooLarge();
      return;
    }
    request.finishRequest();
    if (request.malformed() != null) {
      throw Http3Exception.stream(Http3Errors.H3_MESSAGE_ERROR, request.malformed());
    }
    RequestRefusal refusal = RequestRefusal.of(request);
    if (refusal != null) {
      respond(refusal);
      return;
    }
    startCall(request);
  }

  private void refuseTooLarge() {
    respond(
        new RequestRefusal(
            431,
            Status.RESOURCE_EXHAUSTED.withDescription(
                "Request header metadata larger than "
                    + connection.options().maxInboundMetadataSize()
                    + " bytes"),
            false));
  }

  /** Answers a request that starts no call, and stops reading it. */
  private void respond(RequestRefusal refusal) {
    responded = true;
    byte[][] fields =
        refusal.textBody()
            ? GrpcFields.httpErrorWithBody(refusal.httpStatus(), refusal.status())
            : GrpcFields.httpError(refusal.httpStatus(), refusal.status());
    ByteBuf out = channel.alloc().buffer();
    Http3Frames.writeHeaders(out, fields);
    if (refusal.textBody()) {
      byte[] text =
          (refusal.httpStatus() + " " + refusal.status().getDescription() + "\n")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      Http3Frames.writeFrameHeader(out, Http3Frames.DATA, text.length);
      out.writeBytes(text);
    }
    channel.writeAndFlush(new DefaultQuicStreamFrame(out, true));
    stopReading();
    closeNow(refusal.status());
  }

  private void startCall(RequestHeaders request) {
    Metadata metadata = request.toMetadata();
    String fullMethodName = connection.options().methodNames().of(request.path());
    deframer =
        new MessageDeframer(
            this, Codec.Identity.NONE, connection.options().maxInboundMessageSize());
    stream =
        new Http3ServerStream(
            this, channel, request.authority(), connection.attributes(), connection.handOff());
    try {
      connection.listener().streamCreated(stream, fullMethodName, metadata);
    } catch (RuntimeException e) {
      abort(Status.INTERNAL.withDescription("server did not accept the stream").withCause(e));
      return;
    }
    if (listener == null) {
      abort(Status.INTERNAL.withDescription("server did not accept the stream"));
    }
  }

  @Override
  public void onData(ByteBuf data) throws Http3Exception {
    if (!headersReceived || trailersReceived) {
      data.release();
      throw Http3Exception.connection(
          Http3Errors.H3_FRAME_UNEXPECTED,
          headersReceived ? "DATA after the request's trailers" : "DATA before HEADERS");
    }
    if (closed || deframer == null) {
      data.release();
      return;
    }
    undeliveredBytes += data.readableBytes();
    deframer.deframe(new NettyReadableBuffer(data));
  }

  // ---- from the application half

  UnreadResponseLimits unreadLimits() {
    return connection.unreadLimits();
  }

  /** The call queued more responses than its bound for a client that does not read them. */
  void resetForUnreadResponses(Status status) {
    if (closed) {
      return;
    }
    channel.shutdown((int) Http3Errors.H3_EXCESSIVE_LOAD);
    closeNow(status);
    channel.close();
  }

  void closeConnectionForUnreadResponses() {
    connection.closeForUnreadResponses();
  }

  NettyWritableBufferAllocator bufferAllocator() {
    return connection.options().bufferAllocator();
  }

  void setListener(ServerStreamListener listener) {
    this.listener = listener;
  }

  void setDecompressor(Decompressor decompressor) {
    if (deframer != null) {
      deframer.setDecompressor(decompressor);
    }
  }

  void setMaxInboundMessageSize(int bytes) {
    if (deframer != null) {
      deframer.setMaxInboundMessageSize(bytes);
    }
  }

  void setFrameSizeListener(LongConsumer sizes) {
    if (deframer != null) {
      deframer.setFrameSizeListener(sizes);
    }
  }

  void request(int n) {
    if (deframer != null && !closed) {
      deframer.request(n);
    }
  }

  void writeHeaders(byte[][] fields) {
    if (closed || headersSent || trailersSent) {
      return;
    }
    headersSent = true;
    wroteSinceProbe = true;
    ByteBuf out = channel.alloc().buffer();
    Http3Frames.writeHeaders(out, fields);
    channel.write(out);
  }

  /** Framed response messages; takes ownership of {@code data}. */
  void writeData(ByteBuf data, int bytes) {
    if (closed || trailersSent) {
      data.release();
      stream.onSentBytes(bytes);
      return;
    }
    if (!headersSent) {
      writeHeaders(GrpcFields.response(new Metadata()));
    }
    dataSent = true;
    wroteSinceProbe = true;
    ByteBuf header = channel.alloc().buffer(16);
    Http3Frames.writeFrameHeader(header, Http3Frames.DATA, data.readableBytes());
    channel.write(header);
    channel
        .writeAndFlush(data)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                writeFailed(f.cause());
              }
              stream.onSentBytes(bytes);
            });
  }

  /**
   * A response write failed: the client stopped the stream (its STOP_SENDING, which is how QUIC
   * tells a server of a cancel when the request's FIN came before the client's RESET_STREAM) or the
   * stream failed (the call ends UNAVAILABLE).
   */
  private void writeFailed(Throwable cause) {
    if (closed) {
      return;
    }
    if (cause instanceof ChannelOutputShutdownException) {
      clientStopped();
      return;
    }
    closeNow(Status.UNAVAILABLE.withDescription("HTTP/3 stream failed").withCause(cause));
    channel.close();
  }

  /** The client stopped the stream (STOP_SENDING): a cancel, which counts as a reset. */
  private void clientStopped() {
    boolean ordinary = resetIsOrdinary();
    closeNow(Status.CANCELLED.withDescription("client cancelled (STOP_SENDING)"));
    channel.close();
    connection.clientReset(ordinary);
  }

  /** Ends the call: trailers with FIN, then {@code closed(OK)} once written. */
  void writeTrailers(Status status, Metadata trailers) {
    if (closed || trailersSent) {
      return;
    }
    sendTrailers(status, trailers)
        .addListener(
            f ->
                closeNow(
                    f.isSuccess()
                        ? Status.OK
                        : Status.UNAVAILABLE
                            .withDescription("failed to send trailers")
                            .withCause(f.cause())));
  }

  /**
   * Writes the trailers with FIN. A call that sent no headers yet sends empty response headers
   * first, never a Trailers-Only HEADERS: gRPC allows both, and Envoy's HTTP/3 upstream codec
   * (1.40) passes a lone HEADERS with FIN on without its end of stream, so its clients lost the
   * status (envoyproxy/envoy#28053; Http3EnvoyInteropTest).
   */
  private ChannelFuture sendTrailers(Status status, Metadata trailers) {
    if (!headersSent) {
      writeHeaders(GrpcFields.response(new Metadata()));
    }
    trailersSent = true;
    ByteBuf out = channel.alloc().buffer();
    Http3Frames.writeHeaders(out, GrpcFields.trailers(status, trailers, false));
    ChannelFuture sent = channel.writeAndFlush(new DefaultQuicStreamFrame(out, true));
    stopReading();
    return sent;
  }

  /**
   * Aborts the call with {@code status}: trailers tell the client when none went yet, then the
   * request side is stopped if the client is still sending.
   */
  void abort(Status status) {
    if (closed) {
      return;
    }
    if (!trailersSent) {
      sendTrailers(status, new Metadata());
    }
    closeNow(status);
  }

  /** The response is complete: whatever the client still sends is not wanted (STOP_SENDING). */
  private void stopReading() {
    if (!endOfStreamReceived && channel.isActive()) {
      endOfStreamReceived = true;
      channel.shutdownInput((int) Http3Errors.H3_NO_ERROR);
    }
  }

  private void closeNow(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    if (probed) {
      connection.stopSendingProbe().remove(this);
    }
    if (deframer != null) {
      deframer.close();
    }
    if (stream != null) {
      stream.onClosed();
    }
    if (listener != null) {
      listener.closed(status);
    }
    connection.streamClosed();
  }

  void onReady() {
    if (!closed && listener != null) {
      listener.onReady();
    }
  }

  // ---- MessageDeframer.Listener

  @Override
  public void messageRead(InputStream message) {
    if (closed || listener == null) {
      closeQuietly(message);
      return;
    }
    listener.messageRead(message);
  }

  @Override
  public void deframerClosed(boolean hasPartialMessage) {
    if (!closed && endOfStreamReceived && listener != null && !responded) {
      listener.halfClosed();
    }
  }

  @Override
  public void deframeFailed(Throwable cause) {
    abort(Status.fromThrowable(cause));
  }

  @Override
  public void bytesRead(int numBytes) {
    undeliveredBytes -= numBytes;
    if (readPaused && undeliveredBytes < READ_WINDOW) {
      readPaused = false;
      channel.read();
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only releasing buffers.
    }
  }
}
