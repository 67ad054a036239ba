package dev.tern.internal.channel;

import dev.tern.MethodDescriptor;
import dev.tern.internal.config.MethodConfig;
import dev.tern.spi.ClientStream;
import java.util.concurrent.Executor;

/**
 * Where a {@link ClientCallImpl} gets its method config and its stream: the channel applies its
 * service config, picks a transport, or hands out a stream that buffers until one is ready, or one
 * that fails at once (channel shut down, fail-fast call in transient failure). Thread-safe.
 */
public interface ClientStreamProvider {
  /**
   * The service config's settings for a call of {@code method} starting now: {@link
   * CallStreams#NO_METHOD_CONFIG} if none, or null while the channel does not know its config yet
   * (the call is then configured by {@link ClientCallImpl#configure} when it is known).
   */
  MethodConfig methodConfig(MethodDescriptor<?, ?> method);

  /**
   * Returns a stream for {@code call}; never null and never throws. The caller then calls the
   * stream's setters and {@code start}, as with {@link dev.tern.spi.ClientTransport#newStream}. The
   * call's method, options and request headers (reserved ones included) are read from it; the
   * runtime does not modify the headers, so the call may pass them again for a transparent retry (a
   * stream tracer factory may replace a header of its own in them).
   *
   * @param appExecutor the call's application executor, handed to call credentials
   */
  ClientStream newStream(ClientCallImpl<?, ?> call, Executor appExecutor);
}
