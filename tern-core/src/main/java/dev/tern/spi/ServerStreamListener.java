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
   * Whether the client's reset of this stream now would be ordinary traffic rather than part of a
   * Rapid Reset: at least half of the time the call's {@code grpc-timeout} gave it has passed (the
   * reset is the client's deadline expiring: it races the server's own expiry, and an overloaded
   * server's timers run late), or the call carries a deadline and has run for 100 ms (a client
   * giving up at its deadline on a call a saturated server read late, early in the server's count
   * of its time; Rapid Reset resets at once), or the call carries a deadline and still waits for
   * the server's executor (a client giving up at its deadline on a call the server was too busy to
   * start; the server drops such a call at the reset, without running it, so the reset leaves no
   * work behind). False for a call without a deadline that has not got that far: a stream opened
   * and reset at once. A transport asks when the client resets a stream it has sent no response
   * message on. Thread-safe.
   */
  default boolean resetIsOrdinary() {
    return false;
  }
}
