package dev.tern.http3.internal.client;

import dev.tern.Codec;
import dev.tern.Decompressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Exception;
import dev.tern.http3.internal.frame.Http3FrameReader;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.http3.internal.frame.QpackDecoder;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.MessageDeframer;
import dev.tern.netty.internal.buffer.NettyReadableBuffer;
import dev.tern.netty.internal.client.GrpcResponseHeaders;
import dev.tern.netty.internal.client.Http2Statuses;
import dev.tern.netty.internal.client.ResponseHeaderSink;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.function.LongConsumer;

/**
 * The event-loop half of one call over HTTP/3, the handler of its bidirectional QUIC stream: writes
 * the request (HEADERS, DATA frames, FIN at half-close), reads the response (HEADERS, DATA,
 * trailing HEADERS, FIN; or Trailers-Only: one HEADERS carrying {@code grpc-status}), owns the
 * deframer and ends the call exactly once, with statuses judged as on HTTP/2 ({@link
 * Http2Statuses}). The application half is {@link Http3ClientStream}.
 *
 * <p>Cancelling resets the stream both ways (RESET_STREAM and STOP_SENDING, H3_REQUEST_CANCELLED).
 * The server's H3_REQUEST_REJECTED, or a GOAWAY that excludes the stream, ends the call REFUSED
 * (never processed: the runtime retries it transparently). The stream reads no more while 1 MiB of
 * the response waits undelivered, so QUIC's flow control holds the server back.
 *
 * <p>Event loop only (the connection's).
 */
final class Http3ResponseStream extends ChannelInboundHandlerAdapter
    implements Http3FrameReader.Listener, MessageDeframer.Listener {
  /** Undelivered response bytes past which the stream stops reading. */
  static final int READ_WINDOW = 1024 * 1024;

  private final Http3ClientConnection connection;
  private final Http3ClientStream stream;
  private final MessageDeframer deframer;
  private final Http3FrameReader reader;
  private final ResponseHeaderSink block = new ResponseHeaderSink();
  private DecompressorRegistry decompressorRegistry = DecompressorRegistry.getDefaultInstance();
  private ClientStreamListener listener;
  private byte[][] requestFields;

  /** DATA handed over before the stream opened, written when it does. */
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>(2);

  private QuicStreamChannel channel;
  private boolean headersReceived;
  private Status pendingStatus;
  private Metadata pendingTrailers;
  private boolean outputDone;
  private boolean closed;
  private int undeliveredBytes;
  private boolean readPaused;

  Http3ResponseStream(Http3ClientConnection connection, Http3ClientStream stream) {
    this.connection = connection;
    this.stream = stream;
    this.deframer =
        new MessageDeframer(this, Codec.Identity.NONE, GrpcHeaders.DEFAULT_MAX_MESSAGE_SIZE);
    int metadataLimit = connection.maxInboundMetadataSize();
    // Encoded sections are at most a little longer than their decoded size; a longer one is over
    // the limit however it decodes.
    this.reader =
        new Http3FrameReader(Http3FrameReader.Kind.RESPONSE, this, 2 * metadataLimit + 1024);
  }

  // ---- from the application half (published by the hand-over to the event loop)

  void setListener(ClientStreamListener listener) {
    this.listener = listener;
  }

  void configure(int maxInboundMessageSize, DecompressorRegistry registry) {
    deframer.setMaxInboundMessageSize(maxInboundMessageSize);
    decompressorRegistry = registry;
  }

  void setFrameSizeListener(LongConsumer sizes) {
    deframer.setFrameSizeListener(sizes);
  }

  // ---- on the event loop, from the application half

  void start(byte[][] fields) {
    if (closed) {
      return;
    }
    requestFields = fields;
    connection.open(this);
  }

  void request(int n) {
    if (!closed) {
      deframer.request(n);
    }
  }

  /** Framed request messages (or none) and whether the request ends; owns {@code data}. */
  void sendData(ByteBuf data, boolean endOfStream, int bytes) {
    if (closed || outputDone) {
      data.release();
      stream.onSentBytes(bytes);
      return;
    }
    if (channel == null) {
      waiting.add(() -> sendData(data, endOfStream, bytes));
      return;
    }
    if (data.isReadable()) {
      ByteBuf header = channel.alloc().buffer(16);
      Http3Frames.writeFrameHeader(header, Http3Frames.DATA, data.readableBytes());
      channel.write(header);
    }
    outputDone = endOfStream;
    channel
        .writeAndFlush(endOfStream ? new DefaultQuicStreamFrame(data, true) : data)
        .addListener(f -> stream.onSentBytes(bytes));
  }

  void cancel(Status reason) {
    boolean wasClosed = closed;
    closeNow(reason, RpcProgress.PROCESSED, new Metadata());
    if (!wasClosed) {
      reset(Http3Errors.H3_REQUEST_CANCELLED);
    }
  }

  void onReady() {
    if (!closed) {
      listener.onReady();
    }
  }

  // ---- from the connection

  /** The stream never reached the server. */
  void notStarted(Status status, RpcProgress progress) {
    closeNow(status, progress, new Metadata());
  }

  /** The server's GOAWAY with {@code id}: a stream at or above it was never processed. */
  void goAway(long id) {
    if (channel != null && channel.streamId() >= id && !closed && pendingStatus == null) {
      closeNow(
          Status.UNAVAILABLE.withDescription("the server sent GOAWAY before this call"),
          RpcProgress.REFUSED,
          new Metadata());
      channel.close();
    }
  }

  void connectionClosed(Status status) {
    if (!closed && pendingStatus == null) {
      closeNow(status, RpcProgress.PROCESSED, new Metadata());
    }
  }

  // ---- the QUIC stream

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = (QuicStreamChannel) ctx.channel();
    if (closed) {
      reset(Http3Errors.H3_REQUEST_CANCELLED);
      return;
    }
    channel.config().setAutoRead(false);
    // The response's FIN then arrives as an event while the request can still be written.
    channel.config().setAllowHalfClosure(true);
    ByteBuf out = channel.alloc().buffer();
    Http3Frames.writeHeaders(out, requestFields);
    requestFields = null;
    channel.write(out);
    while (!waiting.isEmpty()) {
      waiting.poll().run();
    }
    channel.flush();
    channel.read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      reader.receive(in);
    } catch (Http3Exception e) {
      if (e.connectionError()) {
        connection.connectionError(e);
      } else {
        fail(Status.INTERNAL.withDescription("HTTP/3 stream error: " + e.getMessage()), e.code());
      }
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
    if (evt instanceof ChannelInputShutdownEvent && !closed && pendingStatus == null) {
      if (reader.insideFrame()) {
        fail(
            Status.INTERNAL.withDescription("HTTP/3 response ended inside a frame"),
            Http3Errors.H3_FRAME_ERROR);
      } else {
        fail(
            Status.INTERNAL.withDescription(
                headersReceived
                    ? "HTTP/3 response ended without trailers"
                    : "HTTP/3 response ended without headers"),
            Http3Errors.H3_MESSAGE_ERROR);
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof QuicStreamResetException reset) {
      long code = reset.applicationProtocolCode();
      if (closed || pendingStatus != null) {
        return; // the response is complete: a reset of the request side changes nothing
      }
      String description = "the server reset the stream with " + Http3Errors.name(code);
      if (code == Http3Errors.H3_REQUEST_REJECTED) {
        closeNow(
            Status.UNAVAILABLE.withDescription(description), RpcProgress.REFUSED, new Metadata());
      } else {
        Status.Code status =
            code == Http3Errors.H3_REQUEST_CANCELLED
                ? Status.Code.CANCELLED
                : code == Http3Errors.H3_EXCESSIVE_LOAD
                    ? Status.Code.RESOURCE_EXHAUSTED
                    : Status.Code.INTERNAL;
        closeNow(
            Status.fromCode(status).withDescription(description),
            RpcProgress.PROCESSED,
            new Metadata());
      }
    } else if (!closed && pendingStatus == null) {
      closeNow(
          Status.UNAVAILABLE.withDescription("HTTP/3 stream failed").withCause(cause),
          RpcProgress.PROCESSED,
          new Metadata());
    }
    channel.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    reader.release();
    if (!closed && pendingStatus == null) {
      closeNow(
          Status.UNAVAILABLE.withDescription("HTTP/3 stream closed before the response ended"),
          RpcProgress.PROCESSED,
          new Metadata());
    }
    ctx.fireChannelInactive();
  }

  // ---- frames

  @Override
  public void onHeaders(ByteBuf encoded) throws Http3Exception {
    if (closed || pendingStatus != null) {
      return;
    }
    block.start();
    if (!new QpackDecoder(connection.maxInboundMetadataSize()).decode(encoded, block)) {
      tooLarge();
      return;
    }
    if (block.malformed() != null) {
      fail(Status.INTERNAL.withDescription(block.malformed()), Http3Errors.H3_MESSAGE_ERROR);
      return;
    }
    GrpcResponseHeaders headers = block.headers();
    String invalid = headers.invalidBinaryHeader();
    if (invalid != null) {
      fail(Status.INTERNAL.withDescription(invalid), Http3Errors.H3_MESSAGE_ERROR);
      return;
    }
    if (headersReceived || headers.grpcStatus() != null) {
      // Trailers, or a Trailers-Only response (its one HEADERS carries grpc-status): the latter is
      // the response's head too, checked as the headers path checks it.
      Status status =
          headersReceived
              ? Http2Statuses.fromTrailers(headers)
              : Http2Statuses.fromTrailersOnly(headers);
      headersReceived = true;
      pendingStatus = status;
      pendingTrailers = headers.toMetadata();
      // Delivers the rest of what was requested first; deframerClosed reports the status then.
      deframer.closeWhenComplete();
      return;
    }
    if (Http2Statuses.isInformational(headers.status())) {
      return; // a 1xx response precedes the real one (RFC 9114 section 4.1)
    }
    headersReceived = true;
    Status invalidResponse = Http2Statuses.checkResponseHead(headers);
    if (invalidResponse != null) {
      fail(invalidResponse, Http3Errors.H3_REQUEST_CANCELLED);
      return;
    }
    Metadata metadata = headers.toMetadata();
    String encoding = metadata.get(GrpcHeaders.MESSAGE_ENCODING);
    if (encoding != null) {
      Decompressor decompressor = decompressorRegistry.lookupDecompressor(encoding);
      if (decompressor == null) {
        fail(
            Status.INTERNAL.withDescription(
                "Can't find decompressor for " + encoding + " named in the response"),
            Http3Errors.H3_REQUEST_CANCELLED);
        return;
      }
      deframer.setDecompressor(decompressor);
    }
    listener.headersRead(metadata);
  }

  @Override
  public void onHeadersTooLarge(long length) {
    if (!closed && pendingStatus == null) {
      tooLarge();
    }
  }

  private void tooLarge() {
    fail(
        Status.RESOURCE_EXHAUSTED.withDescription(
            "Response header metadata larger than "
                + connection.maxInboundMetadataSize()
                + " bytes"),
        Http3Errors.H3_EXCESSIVE_LOAD);
  }

  @Override
  public void onData(ByteBuf data) {
    if (closed || pendingStatus != null) {
      data.release();
      return;
    }
    if (!headersReceived) {
      data.release();
      fail(
          Status.INTERNAL.withDescription("Received DATA before response headers"),
          Http3Errors.H3_FRAME_UNEXPECTED);
      return;
    }
    undeliveredBytes += data.readableBytes();
    deframer.deframe(new NettyReadableBuffer(data));
  }

  // ---- ending

  /** Fails the call on a local decision, and resets the stream with {@code code}. */
  private void fail(Status status, long code) {
    boolean wasClosed = closed;
    closeNow(status, RpcProgress.PROCESSED, new Metadata());
    if (!wasClosed) {
      reset(code);
    }
  }

  /** RESET_STREAM and STOP_SENDING with {@code code}, then the stream is gone. */
  private void reset(long code) {
    if (channel != null && channel.isActive()) {
      channel.shutdown((int) code);
      channel.close();
    }
  }

  private void closeNow(Status status, RpcProgress progress, Metadata trailers) {
    if (closed) {
      return;
    }
    closed = true;
    pendingStatus = null;
    pendingTrailers = null;
    deframer.close();
    while (!waiting.isEmpty()) {
      waiting.poll().run(); // releases the data: closed now
    }
    stream.onClosed();
    listener.closed(status, progress, trailers);
    connection.closed(this);
  }

  // ---- MessageDeframer.Listener

  @Override
  public void messageRead(InputStream message) {
    if (closed) {
      closeQuietly(message);
      return;
    }
    listener.messageRead(message);
  }

  @Override
  public void deframerClosed(boolean hasPartialMessage) {
    if (closed || pendingStatus == null) {
      return;
    }
    Status status = pendingStatus;
    Metadata trailers = pendingTrailers;
    if (hasPartialMessage && status.isOk()) {
      status = Status.INTERNAL.withDescription("Encountered end-of-stream mid-frame");
    }
    closeNow(status, RpcProgress.PROCESSED, trailers);
    // The response is complete; a request still being sent is not wanted any more.
    if (channel != null && channel.isActive()) {
      if (!outputDone) {
        channel.shutdownOutput((int) Http3Errors.H3_NO_ERROR);
      }
      channel.close();
    }
  }

  @Override
  public void deframeFailed(Throwable cause) {
    fail(Status.fromThrowable(cause), Http3Errors.H3_REQUEST_CANCELLED);
  }

  @Override
  public void bytesRead(int numBytes) {
    undeliveredBytes -= numBytes;
    if (readPaused && undeliveredBytes < READ_WINDOW && channel != null) {
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
