package dev.tern.http3.internal.common;

import dev.tern.http3.internal.frame.Http3Errors;
import dev.tern.http3.internal.frame.Http3Exception;
import dev.tern.http3.internal.frame.Http3FrameReader;
import dev.tern.http3.internal.frame.Http3Frames;
import dev.tern.http3.internal.frame.VarInt;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * One unidirectional stream the peer opened (RFC 9114 section 6.2): its type first, then by type.
 * The control stream's frames go through an {@link Http3FrameReader} (SETTINGS first; GOAWAY is
 * passed to the owner); a second control stream is H3_STREAM_CREATION_ERROR and a control stream
 * that ends is H3_CLOSED_CRITICAL_STREAM. QPACK's encoder stream may only set the dynamic table's
 * capacity to 0 (Tern allows no more: anything else is QPACK_ENCODER_STREAM_ERROR); the decoder
 * stream is read and dropped (Tern's encoder never uses the table it acknowledges). Push streams
 * are errors on both sides: from a client H3_STREAM_CREATION_ERROR, and from a server H3_ID_ERROR
 * (Tern's client never sends MAX_PUSH_ID, so no push ID is allowed); unknown types are refused with
 * STOP_SENDING and otherwise ignored, as the RFC asks. Used by both the server's and the client's
 * connections.
 *
 * <p>Event loop only.
 */
public final class PeerStreamReader extends ChannelInboundHandlerAdapter {
  /** The connection whose peer opened the stream. Called on the connection's event loop. */
  public interface Owner {
    /** The peer opened its control stream; false if it had one already. */
    boolean peerControlStreamOpened();

    /** The peer broke the protocol: the connection ends with the error's code. */
    void connectionError(Http3Exception e);

    /** The peer's GOAWAY (RFC 9114 section 5.2) with {@code id}. */
    void goAway(long id) throws Http3Exception;

    /** Whether this end is the client (the peer a server). */
    boolean isClient();
  }

  private final Owner connection;
  private long type = -1;
  private Http3FrameReader control;
  private ByteBuf typeBytes;

  public PeerStreamReader(Owner connection) {
    this.connection = connection;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      if (type < 0 && !readType(ctx, in)) {
        return;
      }
      if (type == Http3Frames.CONTROL_STREAM) {
        control.receive(in);
      } else if (type == Http3Frames.QPACK_ENCODER_STREAM) {
        readEncoderInstructions(in);
      }
    } catch (Http3Exception e) {
      connection.connectionError(e);
    } finally {
      in.release();
    }
  }

  /** Reads the stream type; false while it is incomplete. */
  private boolean readType(ChannelHandlerContext ctx, ByteBuf in) throws Http3Exception {
    if (typeBytes == null) {
      typeBytes = ctx.alloc().heapBuffer(8);
    }
    while (in.isReadable()
        && (!typeBytes.isReadable()
            || typeBytes.readableBytes() < VarInt.lengthOf(typeBytes.getByte(0)))) {
      typeBytes.writeByte(in.readByte());
    }
    if (!typeBytes.isReadable()
        || typeBytes.readableBytes() < VarInt.lengthOf(typeBytes.getByte(0))) {
      return false;
    }
    type = VarInt.read(typeBytes);
    typeBytes.release();
    typeBytes = null;
    if (type == Http3Frames.CONTROL_STREAM) {
      if (!connection.peerControlStreamOpened()) {
        throw Http3Exception.connection(
            Http3Errors.H3_STREAM_CREATION_ERROR, "a second control stream");
      }
      control =
          new Http3FrameReader(
              Http3FrameReader.Kind.CONTROL,
              new Http3FrameReader.Listener() {
                @Override
                public void onGoAway(long id) throws Http3Exception {
                  connection.goAway(id);
                }
              },
              0);
    } else if (type == Http3Frames.PUSH_STREAM) {
      throw connection.isClient()
          ? Http3Exception.connection(
              Http3Errors.H3_ID_ERROR, "a push stream, though no MAX_PUSH_ID was sent")
          : Http3Exception.connection(
              Http3Errors.H3_STREAM_CREATION_ERROR, "a push stream from a client");
    } else if (type != Http3Frames.QPACK_ENCODER_STREAM
        && type != Http3Frames.QPACK_DECODER_STREAM) {
      ((QuicStreamChannel) ctx.channel()).shutdownInput((int) Http3Errors.H3_STREAM_CREATION_ERROR);
    }
    return true;
  }

  /** QPACK encoder instructions: only Set Dynamic Table Capacity 0 fits a capacity of 0. */
  private static void readEncoderInstructions(ByteBuf in) throws Http3Exception {
    while (in.isReadable()) {
      int first = in.getByte(in.readerIndex()) & 0xFF;
      if ((first & 0xE0) != 0x20 || (first & 0x1F) != 0) {
        throw Http3Exception.connection(
            Http3Errors.QPACK_ENCODER_STREAM_ERROR,
            "encoder instruction 0x" + Integer.toHexString(first) + " with a table capacity of 0");
      }
      in.skipBytes(1);
    }
  }

  /**
   * Reads once the stream is active rather than when added (inside the stream initializer, which
   * would hear the error of a stream reset in the packet that opened it, and log it).
   */
  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.read();
    ctx.fireChannelActive();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.read();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent
        && (type == Http3Frames.CONTROL_STREAM
            || type == Http3Frames.QPACK_ENCODER_STREAM
            || type == Http3Frames.QPACK_DECODER_STREAM)) {
      connection.connectionError(
          Http3Exception.connection(
              Http3Errors.H3_CLOSED_CRITICAL_STREAM, "the peer closed a critical stream"));
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (typeBytes != null) {
      typeBytes.release();
      typeBytes = null;
    }
    if (control != null) {
      control.release();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
