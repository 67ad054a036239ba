package dev.tern.netty.internal.codec;

import io.netty.channel.WriteBufferWaterMark;

/**
 * How many bytes a connection's outbound buffer may hold before the channel reports itself
 * unwritable. Netty's HTTP/2 flow controller writes DATA only while the channel is writable; with
 * Netty's default marks (32 and 64 KiB) a 1 MiB message went out in 64 KiB passes, each waiting for
 * the socket to drain and the writability event to come back round. With 1 MiB the flow controller
 * hands a large message to the socket in one pass. It does not raise the memory a peer can make a
 * connection hold: the bytes written are bounded by the peer's HTTP/2 windows, and what does not
 * fit waits in the flow controller either way.
 *
 * <p>Constants only.
 */
public final class WriteLimits {
  public static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(1 << 20, 2 << 20);

  private WriteLimits() {}
}
