package dev.tern.stub;

import dev.tern.StatusException;

/**
 * Where a blocking service method writes its responses (see {@link BlockingServerCalls}).
 *
 * <p>Flow control: {@link #write} sends only while the call is ready ({@link #isReady()}): when the
 * client reads slower than the method writes, {@code write} blocks until the transport can take
 * more, so responses never pile up in memory.
 *
 * <p>Thread-safe: any thread may write (the method may hand the writer to another thread); writes
 * from several threads are sent one at a time, in the order they got through. The writer is only
 * valid until the service method returns.
 *
 * @param <T> the response type
 */
public interface BlockingServerWriter<T> {
  /**
   * Sends {@code message}, first waiting until the call is ready to send.
   *
   * @throws NullPointerException if {@code message} is null
   * @throws StatusException {@code CANCELLED} (or {@code DEADLINE_EXCEEDED}) if the call ended
   *     before the message could be sent: the client cancelled it, its deadline passed, or the
   *     connection was lost
   * @throws InterruptedException if the thread was interrupted while waiting for anything but the
   *     end of the call
   * @throws IllegalStateException if the service method has already returned
   */
  void write(T message) throws InterruptedException, StatusException;

  /** Whether a {@link #write} would send at once, without waiting. */
  boolean isReady();

  /** Whether the call has ended before the service method finished (client gone, deadline). */
  boolean isCancelled();
}
