package dev.tern.netty.internal.write;

import io.netty.channel.WriteBufferWaterMark;

/**
 * How many bytes a connection's outbound buffer may hold before the channel reports itself
 * unwritable: 1 MiB, where Netty's defaults are 32 and 64 KiB. The HTTP/2 engine hands each flush's
 * frames to the channel as one buffer, as far as the peer's windows allow, and the server stops
 * reading while its channel is not writable; with Netty's marks a large response made the channel
 * unwritable (and the server deaf) at every flush. It does not raise the memory a peer can make a
 * connection hold: the bytes written are bounded by the peer's HTTP/2 windows, and what does not
 * fit waits in the engine either way.
 *
 * <p>Constants only.
 */
public final class WriteLimits {
  public static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(1 << 20, 2 << 20);

  private WriteLimits() {}
}
