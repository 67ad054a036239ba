package dev.tern.stub;

import dev.tern.StatusException;

/**
 * Where a blocking client-streaming or bidi service method reads its requests (see {@link
 * BlockingServerCalls}).
 *
 * <p>Flow control: the client is asked for one message at a time, each time {@link #read()} needs
 * one; a method that reads slowly slows the client down, and at most one unread request is held in
 * memory.
 *
 * <p>Thread-safe: any thread may read (the method may hand the reader to another thread); each
 * request goes to exactly one {@code read()}. The reader is only valid until the method returns.
 *
 * @param <T> the request type
 */
public interface BlockingServerReader<T> {
  /**
   * Waits for the next request.
   *
   * @return the next request, or null once the client has half-closed and every request was read
   * @throws StatusException {@code CANCELLED} (or {@code DEADLINE_EXCEEDED}) if the call ended
   *     before the client half-closed: the client cancelled it, its deadline passed, or the
   *     connection was lost
   * @throws InterruptedException if the thread was interrupted while waiting for anything but the
   *     end of the call
   * @throws IllegalStateException if the service method has already returned
   */
  T read() throws InterruptedException, StatusException;
}
