package dev.tern.netty.internal.write;

/**
 * Holds back the flushes asked for while Tern's HTTP/2 engine reads a chunk. The engine writes its
 * answers to a chunk into the flush's one buffer, which it holds until the chunk is done; a flush
 * asked for meanwhile (a protocol answering a request at once, a connection closing when its last
 * stream ends) would hand that buffer to the channel while the engine still writes into it. So a
 * flush asked for during a read happens at the read's end.
 *
 * <p>The engine's write side of a connection extends this (rather than holding one, a small object
 * more on every connection): its {@link #flush} starts with {@link #holdBack}.
 *
 * <p>Event loop only; not thread-safe.
 */
public abstract class FlushAfterRead {
  private boolean reading;
  private boolean flushAsked;
  private boolean closeAsked;

  /**
   * The flush (closing the channel once it is written if {@code close}); {@link #endRead} calls it
   * for the flush held back.
   */
  public abstract void flush(boolean close);

  /** The engine starts reading a chunk. */
  public void beginRead() {
    reading = true;
  }

  /**
   * Whether a flush asked for now must wait for the read's end; if so, it is remembered (with
   * {@code close}, which any flush asked for during the read may set).
   */
  protected boolean holdBack(boolean close) {
    if (!reading) {
      return false;
    }
    flushAsked = true;
    closeAsked |= close;
    return true;
  }

  /** The chunk is read: the flush held back, if any, happens now. */
  public void endRead() {
    reading = false;
    if (flushAsked) {
      boolean close = closeAsked;
      flushAsked = false;
      closeAsked = false;
      flush(close);
    }
  }
}
