package dev.tern.netty.internal.codec;

/**
 * Holds back the flushes asked for while Tern's HTTP/2 engine reads a chunk. The engine writes its
 * answers to a chunk into the flush's one buffer, which it holds until the chunk is done; a flush
 * asked for meanwhile (a protocol answering a request at once, a connection closing when its last
 * stream ends) would hand that buffer to the channel while the engine still writes into it. So a
 * flush asked for during a read happens at the read's end.
 *
 * <p>Event loop only; not thread-safe.
 */
public final class FlushAfterRead {
  /** What is held back: a flush, closing the channel once it is written if {@code close}. */
  public interface Flush {
    void flush(boolean close);
  }

  private final Flush flush;
  private boolean reading;
  private boolean flushAsked;
  private boolean closeAsked;

  public FlushAfterRead(Flush flush) {
    this.flush = flush;
  }

  /** The engine starts reading a chunk. */
  public void beginRead() {
    reading = true;
  }

  /**
   * Whether a flush asked for now must wait for the read's end; if so, it is remembered (with
   * {@code close}, which any flush asked for during the read may set).
   */
  public boolean holdBack(boolean close) {
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
      flush.flush(close);
    }
  }
}
