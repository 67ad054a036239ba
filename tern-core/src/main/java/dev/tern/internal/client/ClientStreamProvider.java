package dev.tern.internal.client;

import dev.tern.Deadline;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.internal.config.MethodConfig;
import dev.tern.spi.ClientStream;
import java.util.concurrent.Executor;

/**
 * Where a {@link ClientCallImpl} gets its streams: the layer below the call (a retry policy's
 * stream, the balancer's pick, one subchannel's transport), or a stream that buffers until one is
 * ready, or one that fails at once (channel shut down, fail-fast call in transient failure). It is
 * handed what a pick needs, never the call: nothing below the call calls back into it. Thread-safe.
 */
public interface ClientStreamProvider {
  /**
   * Returns a stream for one call; never null and never throws. The caller then calls the stream's
   * setters and {@code start}, as with {@link dev.tern.spi.ClientTransport#newStream}. The runtime
   * does not modify {@code args}' headers, so the call may pass them again for a transparent retry
   * (a stream tracer factory may replace a header of its own in them).
   *
   * @param args the call's method, options (as its method config adjusted them) and request headers
   *     (reserved ones included)
   * @param methodConfig the call's method config ({@link MethodConfig#NONE} if none): its retry or
   *     hedging policy
   * @param deadline the call's deadline, or null (each retry attempt sends what remains of it)
   * @param appExecutor the call's application executor, handed to call credentials
   */
  ClientStream newStream(
      PickSubchannelArgs args, MethodConfig methodConfig, Deadline deadline, Executor appExecutor);
}
