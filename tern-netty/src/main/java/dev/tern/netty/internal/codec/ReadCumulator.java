package dev.tern.netty.internal.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Keeps the bytes of a connection that the HTTP/2 frame reader has not consumed yet (the start of a
 * frame that a socket read cut off) together with the next read.
 *
 * <p>Netty's default cumulator copies each new read onto that tail. With 16 KiB DATA frames almost
 * every read of a large message ends inside a frame, so every byte of the message would be copied
 * once more on its way in. Here a read of at least {@link #JOIN_READ_AT} bytes following a tail of
 * at least {@link #JOIN_TAIL_AT} bytes becomes a component of a composite buffer instead, without a
 * copy. Everything else is copied as before:
 *
 * <ul>
 *   <li>small reads, so a peer that trickles its bytes cannot build a composite of many tiny
 *       components (each component holds a whole read buffer);
 *   <li>reads after a short tail (a small frame's start), so the streams of small messages keep the
 *       flat buffer the frame reader reads fastest.
 * </ul>
 *
 * <p>The tail is at most one frame (the frame size this side accepts is 16 KiB), so a copy of it
 * when a small read follows a composite stays bounded too. Components the reader has consumed are
 * dropped on every join.
 *
 * <p>Stateless; one shared instance. Called on each connection's event loop.
 */
final class ReadCumulator implements ByteToMessageDecoder.Cumulator {
  static final ReadCumulator INSTANCE = new ReadCumulator();

  /** The smallest read that is joined rather than copied. */
  static final int JOIN_READ_AT = 4096;

  /** The smallest unconsumed tail that a large read is joined to rather than copied onto. */
  static final int JOIN_TAIL_AT = 1024;

  private ReadCumulator() {}

  @Override
  public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    if (!cumulation.isReadable()) {
      cumulation.release();
      return in;
    }
    if (in.readableBytes() < JOIN_READ_AT || cumulation.readableBytes() < JOIN_TAIL_AT) {
      return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
    CompositeByteBuf composite = null;
    try {
      if (cumulation instanceof CompositeByteBuf && cumulation.refCnt() == 1) {
        composite = (CompositeByteBuf) cumulation;
        composite.discardReadComponents();
        if (composite.writerIndex() != composite.capacity()) {
          // Room left by an earlier copied read: the joined read must follow the last byte.
          composite.capacity(composite.writerIndex());
        }
      } else {
        // A fresh composite: either the tail is flat, or slices of the old composite (frames
        // handed on) are still in use and its layout must not change under them.
        composite =
            alloc.compositeBuffer(Integer.MAX_VALUE).addFlattenedComponents(true, cumulation);
      }
      composite.addFlattenedComponents(true, in);
      in = null;
      return composite;
    } finally {
      if (in != null) {
        // Adding failed: the caller releases the cumulation, so only the new read is ours to free.
        in.release();
        if (composite != null && composite != cumulation) {
          composite.release();
        }
      }
    }
  }
}
