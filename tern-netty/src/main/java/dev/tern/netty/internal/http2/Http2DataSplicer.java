package dev.tern.netty.internal.http2;

import io.netty.buffer.ByteBuf;

/**
 * Places a DATA frame's payload into the buffer of a flush without copying it: the {@link
 * Http2FrameWriter} writes the frame's header into that buffer and hands the payload here, so a
 * large message goes from the buffer it was framed into straight to the socket. The transport's
 * write side implements it, as only it knows how the buffer of a flush becomes a write.
 *
 * <p>Used on the connection's event loop only, like the writer.
 */
public interface Http2DataSplicer {
  /**
   * Takes the next {@code length} bytes of {@code data} (moving its reader index past them) as the
   * bytes that follow everything written into {@code out} so far, sharing their memory, and returns
   * true; or returns false having taken nothing, and the writer copies them into {@code out}
   * instead (for a buffer it does not know, say).
   */
  boolean splice(ByteBuf out, ByteBuf data, int length);
}
