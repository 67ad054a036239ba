package dev.tern.spi;

import dev.tern.Compressor;
import java.io.InputStream;

/**
 * The side of a stream the runtime drives (both client and server). Not thread-safe: called by one
 * thread at a time.
 */
public interface Stream {
  /** Lets the transport deliver up to {@code numMessages} more inbound messages. */
  void request(int numMessages);

  /**
   * Whether a {@link #request} made off the transport's own thread is handed over to that thread,
   * so that each request costs a thread hand-off before the next message can come back. The runtime
   * then keeps a few messages read ahead for streaming calls, and asks in batches. Default false
   * (the request acts at once, as in-process).
   */
  default boolean requestsCrossThreads() {
    return false;
  }

  /**
   * Queues one serialized message for sending. The stream owns {@code message} and closes it. A
   * message larger than the outbound limit fails the stream with RESOURCE_EXHAUSTED.
   */
  void writeMessage(InputStream message);

  /** Sends whatever has been queued. */
  void flush();

  /** Whether the transport can take more messages without queueing much locally. */
  boolean isReady();

  /** Compresses the following messages with the stream's compressor (if any). */
  void setMessageCompression(boolean enable);

  /** The compressor for outbound messages; identity means none. Set before the first message. */
  void setCompressor(Compressor compressor);

  /**
   * Reports each message's size on the wire to {@code listener} (tracers); set before the client
   * stream starts or the server stream gets its listener. Transports that do not frame messages
   * (in-process) report nothing, which is the default.
   */
  default void setWireSizeListener(WireSizeListener listener) {}
}
