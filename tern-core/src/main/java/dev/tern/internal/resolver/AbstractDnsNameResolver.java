package dev.tern.internal.resolver;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A DNS resolver's common part: one lookup at a time, every address (A and AAAA) its own server,
 * and {@link #refresh()} rate-limited so a flapping server cannot make the channel flood its DNS
 * server: a refresh sooner than the minimum interval after the last successful lookup is deferred
 * to the end of that interval. A failed lookup does not count: the channel already spaces its
 * retries with its own back-off, and a 30 s wait after a brief DNS outage would keep the channel
 * failing long after DNS is back. Subclasses do the lookup.
 *
 * <p>Thread-safety: state is confined to the channel's synchronization context; lookups complete on
 * any thread and hop back into it.
 */
public abstract class AbstractDnsNameResolver extends NameResolver {
  /** The default minimum time between lookups: 30 seconds, as other gRPC implementations use. */
  public static final long DEFAULT_MIN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final HostAndPort target;
  private final SynchronizationContext sync;
  private final ScheduledExecutorService timer;
  private final long minIntervalNanos;
  private final LongSupplier nanoTime;

  private Listener listener;
  private boolean resolving;
  private boolean shutdown;
  private boolean succeededOnce;
  private long lookupStartNanos;
  private long lastSuccessStartNanos; // when the last successful lookup started
  private SynchronizationContext.ScheduledHandle deferred;

  /**
   * @param minIntervalNanos the least time between two lookups (refreshes sooner are deferred)
   * @param nanoTime the clock for the interval (tests pass a fake)
   */
  protected AbstractDnsNameResolver(
      HostAndPort target, Args args, long minIntervalNanos, LongSupplier nanoTime) {
    this.target = target;
    this.sync = args.getSynchronizationContext();
    this.timer = args.getScheduledExecutorService();
    this.minIntervalNanos = minIntervalNanos;
    this.nanoTime = nanoTime;
  }

  /**
   * Looks up {@code host}'s addresses and reports them to {@code callback}, from any thread,
   * exactly once.
   */
  protected abstract void lookup(String host, LookupCallback callback);

  /** Receives one lookup's outcome. */
  protected interface LookupCallback {
    void found(List<InetAddress> addresses);

    void failed(Throwable cause);
  }

  @Override
  public String getServiceAuthority() {
    return target.authority();
  }

  @Override
  public void start(Listener listener) {
    sync.execute(
        () -> {
          if (this.listener != null) {
            throw new IllegalStateException("already started");
          }
          this.listener = listener;
          resolve();
        });
  }

  @Override
  public void refresh() {
    sync.execute(this::refreshInContext);
  }

  @Override
  public void shutdown() {
    sync.execute(
        () -> {
          shutdown = true;
          if (deferred != null) {
            deferred.cancel();
            deferred = null;
          }
        });
  }

  private void refreshInContext() {
    if (shutdown || listener == null || resolving || deferred != null) {
      return;
    }
    long wait = succeededOnce ? lastSuccessStartNanos + minIntervalNanos - nanoTime.getAsLong() : 0;
    if (wait <= 0) {
      resolve();
      return;
    }
    deferred =
        sync.schedule(
            () -> {
              deferred = null;
              if (!shutdown && !resolving) {
                resolve();
              }
            },
            wait,
            TimeUnit.NANOSECONDS,
            timer);
  }

  private void resolve() {
    resolving = true;
    lookupStartNanos = nanoTime.getAsLong();
    lookup(
        target.host(),
        new LookupCallback() {
          @Override
          public void found(List<InetAddress> addresses) {
            sync.execute(() -> finish(addresses, null));
          }

          @Override
          public void failed(Throwable cause) {
            sync.execute(() -> finish(null, cause));
          }
        });
  }

  private void finish(List<InetAddress> addresses, Throwable cause) {
    resolving = false;
    if (shutdown) {
      return;
    }
    if (cause != null || addresses.isEmpty()) {
      Status error =
          Status.UNAVAILABLE.withDescription(
              "unable to resolve host "
                  + target.host()
                  + (cause == null ? ": no addresses" : ": " + cause.getMessage()));
      listener.onError(cause == null ? error : error.withCause(cause));
      return;
    }
    succeededOnce = true;
    lastSuccessStartNanos = lookupStartNanos;
    List<EquivalentAddressGroup> groups = new ArrayList<>(addresses.size());
    for (InetAddress address : addresses) {
      groups.add(new EquivalentAddressGroup(new InetSocketAddress(address, target.port())));
    }
    listener.onResult(ResolutionResult.newBuilder().setAddresses(groups).build());
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + target.authority() + "}";
  }
}
