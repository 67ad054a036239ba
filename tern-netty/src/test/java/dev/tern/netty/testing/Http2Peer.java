package dev.tern.netty.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The other end of an HTTP/2 connection whose handler under test sits in an {@link
 * EmbeddedChannel}: writes frames into the channel as a peer would send them (with Netty's frame
 * writer and HPACK encoder), and reads back, as {@link Frame}s, what the handler wrote (with
 * Netty's frame reader). Everything happens on the test's thread, which is the embedded channel's
 * event loop: no sleeps, no sockets. Every buffer it makes or takes is released.
 *
 * <p>Not thread-safe: one test thread.
 */
public final class Http2Peer {
  /** A frame the handler under test wrote. */
  public sealed interface Frame {}

  /** HEADERS (with its CONTINUATIONs). */
  public record Headers(int streamId, Http2Headers headers, boolean endStream) implements Frame {}

  /** DATA, its payload copied. */
  public record Data(int streamId, byte[] bytes, boolean endStream) implements Frame {}

  /** RST_STREAM. */
  public record RstStream(int streamId, long errorCode) implements Frame {}

  /** GOAWAY, its debug data as text. */
  public record GoAway(int lastStreamId, long errorCode, String debugData) implements Frame {}

  /** SETTINGS (not an ack). */
  public record Settings(Http2Settings settings) implements Frame {}

  /** A SETTINGS ack. */
  public record SettingsAck() implements Frame {}

  /** PING or its ack. */
  public record Ping(boolean ack, long data) implements Frame {}

  /** WINDOW_UPDATE; stream 0 is the connection's. */
  public record WindowUpdate(int streamId, int increment) implements Frame {}

  private final EmbeddedChannel channel;

  /** Collects what this peer writes; its pipeline holds one handler for a context. */
  private final EmbeddedChannel encoding = new EmbeddedChannel(new ChannelInboundHandlerAdapter());

  private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
  private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader();

  /**
   * Whether the handler's first bytes are a client preface (the handler under test is a client).
   */
  private boolean expectClientPreface;

  private final List<Frame> read = new ArrayList<>();

  /** The peer of the handler in {@code channel}. */
  public Http2Peer(EmbeddedChannel channel) {
    this.channel = channel;
  }

  /** The handler under test is a client: its output starts with the connection preface. */
  public Http2Peer ofClient() {
    expectClientPreface = true;
    return this;
  }

  private ChannelHandlerContext ctx() {
    return encoding.pipeline().firstContext();
  }

  /** The client connection preface and an empty SETTINGS frame (this peer is the client). */
  public void clientPreface() {
    ByteBuf preface = Http2CodecUtil.connectionPrefaceBuf();
    channel.writeInbound(preface);
    settings(new Http2Settings());
  }

  public void settings(Http2Settings settings) {
    writer.writeSettings(ctx(), settings, ctx().newPromise());
    send();
  }

  public void settingsAck() {
    writer.writeSettingsAck(ctx(), ctx().newPromise());
    send();
  }

  public void headers(int streamId, Http2Headers headers, boolean endStream) {
    writer.writeHeaders(ctx(), streamId, headers, 0, endStream, ctx().newPromise());
    send();
  }

  /** One DATA frame carrying {@code payload}. */
  public void data(int streamId, byte[] payload, boolean endStream) {
    writer.writeData(
        ctx(), streamId, Unpooled.wrappedBuffer(payload), 0, endStream, ctx().newPromise());
    send();
  }

  public void rstStream(int streamId, Http2Error error) {
    writer.writeRstStream(ctx(), streamId, error.code(), ctx().newPromise());
    send();
  }

  public void goAway(int lastStreamId, Http2Error error, String debugData) {
    writer.writeGoAway(
        ctx(),
        lastStreamId,
        error.code(),
        Unpooled.copiedBuffer(debugData, StandardCharsets.UTF_8),
        ctx().newPromise());
    send();
  }

  public void ping(boolean ack, long data) {
    writer.writePing(ctx(), ack, data, ctx().newPromise());
    send();
  }

  /** Passes what this peer wrote to the handler, and runs the tasks it scheduled now. */
  private void send() {
    encoding.flush();
    ByteBuf buf;
    while ((buf = encoding.readOutbound()) != null) {
      channel.writeInbound(buf);
    }
    channel.runPendingTasks();
  }

  /**
   * Runs the channel's pending tasks (commands from other classes' queues), then reads every frame
   * the handler wrote since the last call.
   */
  public List<Frame> frames() throws Http2Exception {
    channel.runPendingTasks();
    channel.flush();
    ByteBuf all = Unpooled.buffer();
    try {
      Object out;
      while ((out = channel.readOutbound()) != null) {
        ByteBuf buf = (ByteBuf) out;
        all.writeBytes(buf);
        buf.release();
      }
      if (expectClientPreface) {
        ByteBuf preface = Http2CodecUtil.connectionPrefaceBuf();
        try {
          int length = preface.readableBytes();
          if (all.readableBytes() >= length
              && ByteBufUtil.equals(all, all.readerIndex(), preface, 0, length)) {
            all.skipBytes(length);
            expectClientPreface = false;
          }
        } finally {
          preface.release();
        }
      }
      read.clear();
      reader.readFrame(ctx(), all, new Recorder());
      return List.copyOf(read);
    } finally {
      all.release();
    }
  }

  /** The frames of {@link #frames()} of one type. */
  public <T extends Frame> List<T> frames(Class<T> type) throws Http2Exception {
    return frames().stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** A gRPC length-prefixed message: uncompressed, {@code message} as is. */
  public static byte[] grpcMessage(String message) {
    return grpcMessage(message.getBytes(StandardCharsets.UTF_8));
  }

  /** A gRPC length-prefixed message: uncompressed, {@code message} as is. */
  public static byte[] grpcMessage(byte[] message) {
    byte[] framed = new byte[5 + message.length];
    framed[1] = (byte) (message.length >>> 24);
    framed[2] = (byte) (message.length >>> 16);
    framed[3] = (byte) (message.length >>> 8);
    framed[4] = (byte) message.length;
    System.arraycopy(message, 0, framed, 5, message.length);
    return framed;
  }

  private final class Recorder extends Http2FrameAdapter {
    @Override
    public int onDataRead(
        ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      read.add(new Data(streamId, ByteBufUtil.getBytes(data), endOfStream));
      return data.readableBytes() + padding;
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int padding,
        boolean endOfStream) {
      read.add(new Headers(streamId, headers, endOfStream));
    }

    @Override
    public void onHeadersRead(
        ChannelHandlerContext ctx,
        int streamId,
        Http2Headers headers,
        int streamDependency,
        short weight,
        boolean exclusive,
        int padding,
        boolean endOfStream) {
      onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      read.add(new RstStream(streamId, errorCode));
    }

    @Override
    public void onSettingsAckRead(ChannelHandlerContext ctx) {
      read.add(new SettingsAck());
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
      read.add(new Settings(settings));
    }

    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) {
      read.add(new Ping(false, data));
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
      read.add(new Ping(true, data));
    }

    @Override
    public void onGoAwayRead(
        ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
      read.add(new GoAway(lastStreamId, errorCode, debugData.toString(StandardCharsets.UTF_8)));
    }

    @Override
    public void onWindowUpdateRead(
        ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
      read.add(new WindowUpdate(streamId, windowSizeIncrement));
    }
  }
}
