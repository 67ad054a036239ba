package dev.tern.spi;

import dev.tern.Attributes;
import dev.tern.DecompressorRegistry;
import dev.tern.Status;

/**
 * The client side of one call on a transport. Setters must be called before {@link #start}. Not
 * thread-safe (see {@link Stream}).
 */
public interface ClientStream extends Stream {
  /** Largest inbound message; larger ones fail the stream with RESOURCE_EXHAUSTED. */
  void setMaxInboundMessageSize(int bytes);

  /** Largest outbound message. */
  void setMaxOutboundMessageSize(int bytes);

  /** Decompressors the transport may pick from the response's {@code grpc-encoding}. */
  void setDecompressorRegistry(DecompressorRegistry registry);

  /** Starts the stream: the request headers go out. {@code listener} gets every event. */
  void start(ClientStreamListener listener);

  /** No more messages will be written. */
  void halfClose();

  /**
   * Aborts the stream (RST_STREAM(CANCEL) on HTTP/2). The listener's {@code closed} follows with
   * {@code reason}, unless the stream had already closed.
   */
  void cancel(Status reason);

  /** Attributes of the transport; valid after {@link #start}. */
  Attributes getAttributes();

  /**
   * How the runtime hands this call's callbacks to the call's executor (see {@link HandOff}): read
   * once, on the application's thread, before {@link #start}. The default hands each over at once.
   */
  default HandOff handOff() {
    return HandOff.DIRECT;
  }
}
