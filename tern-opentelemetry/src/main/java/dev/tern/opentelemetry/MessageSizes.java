package dev.tern.opentelemetry;

/**
 * The message bytes one direction of a stream carried, for the size metrics: the wire sizes (after
 * compression, without the 5-byte prefix) when the transport reports them, else the uncompressed
 * sizes (a transport that does not frame messages, in-process, does not compress them either).
 *
 * <p>Not thread-safe by itself: each direction's events come from one thread at a time; the totals
 * are volatile so the thread that ends the stream reads the last of them.
 */
final class MessageSizes {
  private volatile long wireTotal;
  private volatile long uncompressedTotal;
  private volatile boolean wireReported;

  void wire(long bytes) {
    wireReported = true;
    wireTotal += bytes;
  }

  void uncompressed(long bytes) {
    uncompressedTotal += bytes;
  }

  /** The total to record. */
  long total() {
    return wireReported ? wireTotal : uncompressedTotal;
  }
}
