package dev.tern.benchmarks.jmh;

/**
 * One open call on which messages of one size flow one way, from the side that sends them as fast
 * as the call's flow control lets it (its {@code isReady()} and on-ready handler) to the side that
 * counts them. Opened by {@link EchoTarget#clientToServer} or {@link EchoTarget#serverToClient};
 * used by one thread (the benchmark's), which must {@link #close} it.
 */
interface OneWayStream {
  /**
   * Has {@code count} more messages sent and returns once the receiving side's handler has been
   * given every message sent so far on this call.
   *
   * @throws IllegalStateException if the call failed or ended early, or made no progress for {@link
   *     OneWayProgress#TIMEOUT_SECONDS} seconds (flow control never let the sender go on, or the
   *     receiver stopped counting)
   */
  void transfer(int count) throws InterruptedException;

  /**
   * Half-closes the call and waits for it to end normally.
   *
   * @return how many messages the receiving side counted on this call
   * @throws IllegalStateException if the call failed, did not end in time, or the receiver counted
   *     a different number of messages than were sent
   */
  long close() throws InterruptedException;

  /** The progress of the call, for the flow-control test (pause the receiver, read the counts). */
  OneWayProgress progress();
}
