package dev.tern.spi;

/**
 * Hears the size of each message as it goes over the wire (after compression, without the 5-byte
 * gRPC prefix), for stream tracers. Installed with {@link Stream#setWireSizeListener}.
 *
 * <p>Outbound sizes are reported from the thread writing the message, inbound ones from the
 * transport's thread, each when the message's prefix is written or parsed.
 */
public interface WireSizeListener {
  /** A message of {@code bytes} on the wire was framed for sending. */
  void outboundWireSize(long bytes);

  /** The prefix of an incoming message of {@code bytes} on the wire was parsed. */
  void inboundWireSize(long bytes);
}
