package dev.tern.xds.internal.lb;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One address's call results for outlier detection (gRFC A50, after Envoy): two buckets of
 * successes and failures. Calls finishing count into the active bucket; at each interval the
 * inactive one is zeroed and the two swap, so the inactive bucket then holds the last interval's
 * results for the ejection algorithms to read.
 *
 * <p>Thread-safe: {@link #record} runs on any thread (one volatile read and one atomic increment,
 * no allocation); the other methods run only in the channel's synchronization context. A call that
 * finishes while the buckets swap may count in the interval just closed: as in Envoy, accepted.
 */
final class OutlierCallCounter {
  private volatile Bucket active = new Bucket();
  private Bucket inactive = new Bucket();

  /** Counts one finished call. */
  void record(boolean success) {
    Bucket bucket = active;
    (success ? bucket.successes : bucket.failures).incrementAndGet();
  }

  /** Ends an interval: the results so far become the ones read, and counting starts from zero. */
  void swap() {
    Bucket closed = active;
    inactive.clear();
    active = inactive;
    inactive = closed;
  }

  /** Forgets everything counted. */
  void reset() {
    active.clear();
    inactive.clear();
  }

  /** Successes in the last closed interval. */
  long successes() {
    return inactive.successes.get();
  }

  /** Failures in the last closed interval. */
  long failures() {
    return inactive.failures.get();
  }

  /** Calls in the last closed interval. */
  long volume() {
    return successes() + failures();
  }

  private static final class Bucket {
    final AtomicLong successes = new AtomicLong();
    final AtomicLong failures = new AtomicLong();

    void clear() {
      successes.set(0);
      failures.set(0);
    }
  }
}
