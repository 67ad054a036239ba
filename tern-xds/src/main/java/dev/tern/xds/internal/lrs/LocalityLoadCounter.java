package dev.tern.xds.internal.lrs;

import io.envoyproxy.envoy.config.endpoint.v3.UpstreamLocalityStats;
import java.util.concurrent.atomic.LongAdder;

/**
 * The calls of one cluster to one locality: issued, in progress, succeeded and errored. Calls
 * update it without a lock (LongAdders); a report takes the totals since the last report and starts
 * them again, except the calls in progress, which are a level, not a total. Thread-safe.
 */
public final class LocalityLoadCounter {
  private final LrsLocality locality;
  private final LongAdder issued = new LongAdder();
  private final LongAdder inProgress = new LongAdder();
  private final LongAdder succeeded = new LongAdder();
  private final LongAdder errored = new LongAdder();

  LocalityLoadCounter(LrsLocality locality) {
    this.locality = locality;
  }

  /** A call to this locality has started (its stream was created). */
  public void callStarted() {
    issued.increment();
    inProgress.increment();
  }

  /** A call started here has ended, with an OK status or not. */
  public void callFinished(boolean ok) {
    inProgress.decrement();
    (ok ? succeeded : errored).increment();
  }

  /** The counts since the last snapshot, or null when nothing happened and nothing is open. */
  UpstreamLocalityStats snapshot() {
    long issuedNow = issued.sumThenReset();
    long succeededNow = succeeded.sumThenReset();
    long erroredNow = errored.sumThenReset();
    long open = inProgress.sum();
    if (issuedNow == 0 && succeededNow == 0 && erroredNow == 0 && open == 0) {
      return null;
    }
    return UpstreamLocalityStats.newBuilder()
        .setLocality(locality.toProto())
        .setTotalIssuedRequests(issuedNow)
        .setTotalSuccessfulRequests(succeededNow)
        .setTotalErrorRequests(erroredNow)
        .setTotalRequestsInProgress(Math.max(0, open))
        .build();
  }
}
