package dev.tern.internal.resolver;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * Resolves {@code dns:///host:port} with the JDK's resolver ({@link InetAddress#getAllByName}, so
 * the system's configuration and the JDK's own cache apply), on the channel's offload executor.
 * Thread-safety as {@link AbstractDnsNameResolver}.
 */
final class JdkDnsNameResolver extends AbstractDnsNameResolver {
  private final Executor offload;

  JdkDnsNameResolver(HostAndPort target, Args args, long minIntervalNanos, LongSupplier nanoTime) {
    super(target, args, minIntervalNanos, nanoTime);
    this.offload = args.getOffloadExecutor();
  }

  @Override
  protected void lookup(String host, LookupCallback callback) {
    try {
      offload.execute(
          () -> {
            List<InetAddress> found;
            try {
              found = List.of(InetAddress.getAllByName(host));
            } catch (UnknownHostException | RuntimeException e) {
              callback.failed(e);
              return;
            }
            callback.found(found);
          });
    } catch (RejectedExecutionException e) {
      callback.failed(e);
    }
  }
}
