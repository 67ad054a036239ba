package dev.tern.spi;

import dev.tern.Status;

/** Events of a server stream, from the transport (one thread at a time). */
public interface ServerStreamListener extends StreamListener {
  /** The client half-closed: no more messages will arrive. */
  void halfClosed();

  /**
   * The stream is gone: OK once the server's close was sent, otherwise why it broke (client cancel,
   * deadline, lost connection). Called exactly once, last.
   */
  void closed(Status status);
}
