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

  /**
   * Whether at least half of the time the call's {@code grpc-timeout} gave it has passed; false for
   * a call without a deadline. A transport asks when the client resets a stream it has sent no
   * response message on: that late, the reset is the client's deadline expiring (it races the
   * server's own expiry, and an overloaded server's timers run late), not a rapid reset. A client
   * that resets that late frees the stream at most twice as early as the server would have.
   * Thread-safe.
   */
  default boolean pastHalfOfDeadline() {
    return false;
  }
}
