package dev.tern.internal;

import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.spi.ClientStream;
import java.util.concurrent.Executor;

/**
 * Where a {@link ClientCallImpl} gets its stream: the channel picks a transport, or hands out a
 * stream that buffers until one is ready, or one that fails at once (channel shut down, fail-fast
 * call in transient failure). Thread-safe.
 */
interface ClientStreamProvider {
  /**
   * Returns a stream for one call; never null and never throws. The caller then calls the stream's
   * setters and {@code start}, as with {@link dev.tern.spi.ClientTransport#newStream}.
   *
   * @param args the call: its method, options and request headers (reserved ones included); the
   *     headers are not modified, so the call may pass them again for a transparent retry
   * @param appExecutor the call's application executor, handed to call credentials
   */
  ClientStream newStream(PickSubchannelArgs args, Executor appExecutor);
}
