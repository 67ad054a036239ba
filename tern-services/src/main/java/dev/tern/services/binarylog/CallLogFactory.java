package dev.tern.services.binarylog;

import dev.tern.services.binarylog.v1.GrpcLogEntry;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out a {@link CallLog} per call, each with its own call id: ids count up from a random
 * start, so logs of several processes (or runs) do not share ids, and skip 0, which A16 reserves
 * for "unset".
 *
 * <p>Thread-safe: the id counter is atomic.
 */
final class CallLogFactory {
  private final BinaryLogSink sink;
  private final Clock clock;
  private final AtomicLong nextCallId;

  CallLogFactory(BinaryLogSink sink, Clock clock) {
    this.sink = sink;
    this.clock = clock;
    this.nextCallId = new AtomicLong(new SecureRandom().nextLong());
  }

  CallLog newCallLog(GrpcLogEntry.Logger side, BinaryLogFilter.Limits limits) {
    long id = nextCallId.getAndIncrement();
    if (id == 0) {
      id = nextCallId.getAndIncrement();
    }
    return new CallLog(sink, clock, id, side, limits);
  }
}
