package dev.tern.xds.internal.lb;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Outlier detection's entry for one address (gRFC A50): its call counter, whether and since when it
 * is ejected, its ejection-time multiplier, and the subchannels for that address (every subchannel
 * of the same address shares the entry, its counts and its ejection).
 *
 * <p>Used in the channel's synchronization context, except {@link #counter()}, which the call path
 * reads to count results (see {@link OutlierCallCounter}).
 */
final class OutlierEndpoint {
  private final OutlierCallCounter counter = new OutlierCallCounter();
  private final Set<OutlierSubchannel> subchannels = new LinkedHashSet<>();
  private boolean ejected;
  private long ejectedAtNanos;
  private int multiplier;

  OutlierCallCounter counter() {
    return counter;
  }

  boolean ejected() {
    return ejected;
  }

  int multiplier() {
    return multiplier;
  }

  /** Adds a subchannel of this address; it starts ejected if the address is. */
  void add(OutlierSubchannel subchannel) {
    if (subchannels.add(subchannel) && ejected) {
      subchannel.eject();
    }
  }

  void remove(OutlierSubchannel subchannel) {
    subchannels.remove(subchannel);
  }

  /** Ejects the address at {@code nowNanos}: its subchannels report TRANSIENT_FAILURE. */
  void eject(long nowNanos) {
    ejected = true;
    ejectedAtNanos = nowNanos;
    multiplier++;
    for (OutlierSubchannel subchannel : subchannels) {
      subchannel.eject();
    }
  }

  /** Returns the address to service: its subchannels report their own state again. */
  void uneject() {
    if (!ejected) {
      return;
    }
    ejected = false;
    for (OutlierSubchannel subchannel : subchannels) {
      subchannel.uneject();
    }
  }

  /**
   * The end of an interval's sweep (A50 step 5): an address not ejected has its multiplier lowered
   * by one; an ejected one returns once {@code min(base * multiplier, max(base, max))} has passed
   * since its ejection.
   */
  void endOfSweep(long nowNanos, long baseNanos, long maxNanos) {
    if (!ejected) {
      if (multiplier > 0) {
        multiplier--;
      }
      return;
    }
    long ejectionNanos =
        Math.min(saturatedMultiply(baseNanos, multiplier), Math.max(baseNanos, maxNanos));
    if (nowNanos - ejectedAtNanos >= ejectionNanos) {
      uneject();
    }
  }

  private static long saturatedMultiply(long a, int b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    return (high == 0 && low >= 0) ? low : Long.MAX_VALUE;
  }
}
