package dev.tern.internal.resolver;

import dev.tern.EquivalentAddressGroup;
import dev.tern.HttpConnectProxiedSocketAddress;
import dev.tern.NameResolver;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.NameResolver.ServiceConfigParser;
import dev.tern.ProxyDetector;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.internal.AddressLiterals;
import dev.tern.internal.proxy.SystemProxyDetector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A DNS resolver's common part: one lookup at a time, every address (A and AAAA) its own server,
 * and {@link #refresh()} rate-limited so a flapping server cannot make the channel flood its DNS
 * server: a refresh sooner than the minimum interval after the last successful lookup is deferred
 * to the end of that interval. A failed lookup does not count: the channel already spaces its
 * retries with its own back-off, and a 30 s wait after a brief DNS outage would keep the channel
 * failing long after DNS is back. Subclasses do the lookup.
 *
 * <p>With service configs on, each resolution also asks for the TXT records of {@code
 * _grpc_config.HOST} at the same time as the addresses, and reports both once both are in: the
 * config chosen for this client (gRFC A2, see {@link GrpcConfigTxt}), none when there is no such
 * record, or an error when the record is bad (the channel then keeps its last good config). A TXT
 * lookup that fails only means no config: it never fails the resolution.
 *
 * <p>A host written as an IP address ({@link AddressLiterals}) is not looked up: the resolution is
 * that address, without service config, reported without leaving the synchronization context.
 *
 * <p>Before each lookup it asks the channel's {@link ProxyDetector} (on the offload executor, where
 * it may block) about the target's name and port, unresolved: when it names a proxy, the resolution
 * is that one proxied address, without a lookup (gRFC A1: the proxy resolves the name). With {@link
 * ProxyDetector#none()} it does not ask, nor when the default detector can tell at once that the
 * target goes direct (a loopback target: {@link SystemProxyDetector#isDirectAtOnce}).
 *
 * <p>Thread-safety: state is confined to the channel's synchronization context; lookups complete on
 * any thread and hop back into it.
 */
public abstract class AbstractDnsNameResolver extends NameResolver {
  /** The default minimum time between lookups: 30 seconds, as other gRPC implementations use. */
  public static final long DEFAULT_MIN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static final Logger logger = Logger.getLogger(AbstractDnsNameResolver.class.getName());

  private final HostAndPort target;
  private final SynchronizationContext sync;
  private final ScheduledExecutorService timer;
  private final long minIntervalNanos;
  private final LongSupplier nanoTime;
  private final boolean serviceConfigLookup;
  private final Executor offload;
  private final ServiceConfigParser serviceConfigParser;
  private final ProxyDetector proxyDetector;

  private Listener listener;
  private boolean resolving;
  private boolean shutdown;
  private boolean succeededOnce;
  private long lookupStartNanos;
  private long lastSuccessStartNanos; // when the last successful lookup started
  private SynchronizationContext.ScheduledHandle deferred;

  /** A resolver without service configs (no TXT lookups). */
  protected AbstractDnsNameResolver(
      HostAndPort target, Args args, long minIntervalNanos, LongSupplier nanoTime) {
    this(target, args, minIntervalNanos, nanoTime, false);
  }

  /**
   * @param minIntervalNanos the least time between two lookups (refreshes sooner are deferred)
   * @param nanoTime the clock for the interval (tests pass a fake)
   * @param serviceConfigLookup whether to look up service configs in TXT records (see the class
   *     doc); the chosen config is parsed with {@link Args#getServiceConfigParser()} on {@link
   *     Args#getOffloadExecutor()}
   */
  protected AbstractDnsNameResolver(
      HostAndPort target,
      Args args,
      long minIntervalNanos,
      LongSupplier nanoTime,
      boolean serviceConfigLookup) {
    this.target = target;
    this.sync = args.getSynchronizationContext();
    this.timer = args.getScheduledExecutorService();
    this.minIntervalNanos = minIntervalNanos;
    this.nanoTime = nanoTime;
    this.serviceConfigLookup = serviceConfigLookup;
    this.offload = args.getOffloadExecutor();
    this.serviceConfigParser = args.getServiceConfigParser();
    this.proxyDetector = args.getProxyDetector();
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

  /**
   * Looks up the TXT records of {@code name} and reports their texts to {@code callback}, from any
   * thread, exactly once; called only when service configs are on. A name without TXT records, or
   * that does not exist, is {@code found(List.of())}.
   */
  protected abstract void lookupTxt(String name, TxtCallback callback);

  /** Receives one TXT lookup's outcome. */
  protected interface TxtCallback {
    /**
     * @param texts each record's text: its character-strings concatenated, as UTF-8 (see {@link
     *     TxtRecords})
     */
    void found(List<String> texts);

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
    if (proxyDetector == ProxyDetector.none()
        || (proxyDetector instanceof SystemProxyDetector system
            && system.isDirectAtOnce(target.host(), target.port()))) {
      lookUp();
      return;
    }
    Runnable detect =
        () -> {
          HttpConnectProxiedSocketAddress proxied = null;
          Exception failure = null;
          try {
            proxied =
                proxyDetector.proxyFor(
                    InetSocketAddress.createUnresolved(target.host(), target.port()));
          } catch (IOException | RuntimeException e) {
            failure = e;
          }
          HttpConnectProxiedSocketAddress detected = proxied;
          Exception failed = failure;
          sync.execute(() -> proxyDetected(detected, failed));
        };
    try {
      offload.execute(detect);
    } catch (RejectedExecutionException e) {
      resolving = false; // the channel is shutting down
    }
  }

  /**
   * The detector's answer (gRFC A1): through a proxy, the target's name is not looked up here (the
   * proxy resolves it), and no service config is looked up either; the one address is the proxy.
   */
  private void proxyDetected(HttpConnectProxiedSocketAddress proxied, Exception failure) {
    if (shutdown) {
      resolving = false;
      return;
    }
    if (failure != null) {
      resolving = false;
      listener.onError(
          Status.UNAVAILABLE
              .withDescription(
                  "cannot tell whether to reach "
                      + target.authority()
                      + " through a proxy: "
                      + failure.getMessage())
              .withCause(failure));
      return;
    }
    if (proxied == null) {
      lookUp();
      return;
    }
    resolving = false;
    succeededOnce = true;
    lastSuccessStartNanos = lookupStartNanos;
    listener.onResult(
        ResolutionResult.newBuilder()
            .setAddresses(List.of(new EquivalentAddressGroup(proxied)))
            .build());
  }

  private void lookUp() {
    InetAddress literal = AddressLiterals.parse(target.host());
    if (literal != null) {
      // Nothing to look up, and no TXT record names an address: answered here, in the context,
      // without a hop to the offload executor and back.
      finish(List.of(literal), null, null);
      return;
    }
    Resolution resolution = new Resolution();
    lookup(
        target.host(),
        new LookupCallback() {
          @Override
          public void found(List<InetAddress> addresses) {
            sync.execute(() -> resolution.addressesDone(addresses, null));
          }

          @Override
          public void failed(Throwable cause) {
            sync.execute(() -> resolution.addressesDone(null, cause));
          }
        });
    if (!serviceConfigLookup) {
      resolution.configDone(null);
      return;
    }
    String txtName = GrpcConfigTxt.NAME_PREFIX + target.host();
    lookupTxt(
        txtName,
        new TxtCallback() {
          @Override
          public void found(List<String> texts) {
            selectConfig(texts, resolution);
          }

          @Override
          public void failed(Throwable cause) {
            logger.log(
                Level.FINE, cause, () -> "no service config: TXT lookup of " + txtName + " failed");
            sync.execute(() -> resolution.configDone(null));
          }
        });
  }

  /** Chooses the config on the offload executor: it may look up this host's name, and parses. */
  private void selectConfig(List<String> texts, Resolution resolution) {
    Runnable select =
        () -> {
          ConfigOrError config = null;
          try {
            config =
                GrpcConfigTxt.select(
                    texts,
                    LocalHostname::get,
                    () -> ThreadLocalRandom.current().nextInt(100),
                    serviceConfigParser);
          } finally {
            ConfigOrError selected = config;
            sync.execute(() -> resolution.configDone(selected));
          }
        };
    try {
      offload.execute(select);
    } catch (RejectedExecutionException e) {
      sync.execute(() -> resolution.configDone(null));
    }
  }

  /**
   * One resolution's two lookups, which may complete in either order; reports when both have.
   * Confined to the synchronization context.
   */
  private final class Resolution {
    private boolean addressesDone;
    private List<InetAddress> addresses;
    private Throwable cause;
    private boolean configDone;
    private ConfigOrError config;

    void addressesDone(List<InetAddress> addresses, Throwable cause) {
      this.addressesDone = true;
      this.addresses = addresses;
      this.cause = cause;
      if (configDone) {
        finish(addresses, cause, config);
      }
    }

    void configDone(ConfigOrError config) {
      this.configDone = true;
      this.config = config;
      if (addressesDone) {
        finish(addresses, cause, config);
      }
    }
  }

  private void finish(List<InetAddress> addresses, Throwable cause, ConfigOrError config) {
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
    listener.onResult(
        ResolutionResult.newBuilder().setAddresses(groups).setServiceConfig(config).build());
  }

  /** This host's name, looked up once, when a TXT record first needs it; null if unknown. */
  private static final class LocalHostname {
    private static final String NAME = lookUp();

    static String get() {
      return NAME;
    }

    private static String lookUp() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (java.net.UnknownHostException | RuntimeException e) {
        logger.log(
            Level.FINE, "this host's name is unknown; clientHostname choices never apply", e);
        return null;
      }
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + target.authority() + "}";
  }
}
