package dev.tern.internal.client;

/**
 * The counts of a {@link BackendThrottle} over a sliding window: requests and accepts in a ring of
 * equal buckets, with running totals, so that adding and reading cost O(1) apart from clearing the
 * buckets time has left behind. The window slides a bucket at a time: a count leaves the totals
 * between {@code window - bucket} and {@code window} after it was added.
 *
 * <p>Not thread-safe: its throttle's lock guards it.
 */
final class ThrottleWindow {
  private final long bucketNanos;
  private final int[] requests;
  private final int[] accepts;

  /** The bucket number ({@code time / bucketNanos}) of the newest bucket; valid once started. */
  private long newest;

  private boolean started;
  private long requestTotal;
  private long acceptTotal;

  /**
   * @param windowNanos how far back the counts reach
   * @param buckets how many parts the window slides by
   */
  ThrottleWindow(long windowNanos, int buckets) {
    if (buckets < 1 || windowNanos < buckets) {
      throw new IllegalArgumentException(
          "windowNanos must be >= buckets >= 1, were " + windowNanos + " and " + buckets);
    }
    this.bucketNanos = windowNanos / buckets;
    this.requests = new int[buckets];
    this.accepts = new int[buckets];
  }

  /** Counts one request at {@code nowNanos}, and one accept too if {@code accepted}. */
  void add(long nowNanos, boolean accepted) {
    int slot = slide(nowNanos);
    requests[slot]++;
    requestTotal++;
    if (accepted) {
      accepts[slot]++;
      acceptTotal++;
    }
  }

  /** Requests in the window as of {@code nowNanos}. */
  long requests(long nowNanos) {
    slide(nowNanos);
    return requestTotal;
  }

  /** Accepts in the window as of the last {@link #requests} or {@link #add}. */
  long accepts() {
    return acceptTotal;
  }

  /**
   * Makes the bucket of {@code nowNanos} the newest, clearing those it passes; returns its slot. A
   * clock that went back leaves the window as it is.
   */
  private int slide(long nowNanos) {
    long bucket = Math.floorDiv(nowNanos, bucketNanos);
    int size = requests.length;
    if (!started) {
      started = true;
      newest = bucket;
    } else if (bucket > newest) {
      long steps = bucket - newest;
      for (long i = 1; i <= Math.min(steps, size); i++) {
        int slot = (int) Math.floorMod(newest + i, (long) size);
        requestTotal -= requests[slot];
        acceptTotal -= accepts[slot];
        requests[slot] = 0;
        accepts[slot] = 0;
      }
      newest = bucket;
    }
    return (int) Math.floorMod(newest, (long) size);
  }
}
