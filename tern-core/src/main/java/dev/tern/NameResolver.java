package dev.tern;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Turns a channel's target into the addresses of its servers, and keeps them current. A channel
 * creates one resolver for its target (through the {@link NameResolverProvider} registered for the
 * target's scheme), {@link #start starts} it when it first needs addresses, asks it to {@link
 * #refresh} when its balancer reports that a connection failed or was lost, and {@link #shutdown
 * shuts it down} when the channel goes idle or shuts down.
 *
 * <p>Threading: the channel calls {@link #start}, {@link #refresh} and {@link #shutdown} from its
 * {@link Args#getSynchronizationContext() synchronization context}. The resolver may call its
 * listener from any thread; blocking work (a DNS lookup) belongs on {@link
 * Args#getOffloadExecutor()}, never in the synchronization context.
 */
public abstract class NameResolver {
  /** For subclasses. */
  protected NameResolver() {}

  /**
   * The authority the channel's calls carry (and TLS checks the server's certificate against),
   * unless the channel overrides it; for {@code dns:///example.com:443}, {@code example.com:443}.
   */
  public abstract String getServiceAuthority();

  /** Starts resolving: the listener hears each result and each error from now on. Called once. */
  public abstract void start(Listener listener);

  /**
   * Asks for a fresh resolution soon. A resolver may rate-limit these (DNS resolvers do), and one
   * that pushes updates on its own may ignore it.
   */
  public void refresh() {}

  /** Stops resolving and releases what the resolver holds; the listener hears nothing more. */
  public abstract void shutdown();

  /**
   * Receives the results of a {@link NameResolver}. The channel's implementation may be called from
   * any thread. Thread-safe.
   */
  public abstract static class Listener {
    /** For the channel. */
    protected Listener() {}

    /** A new set of addresses (and perhaps attributes and a service config). */
    public abstract void onResult(ResolutionResult result);

    /**
     * Resolution failed: waiting calls fail with {@code error} (UNAVAILABLE, naming the target),
     * unless the balancer still has servers from an earlier result; the channel asks again after a
     * back-off.
     *
     * @param error a non-OK status
     */
    public abstract void onError(Status error);
  }

  /**
   * What a resolution produced: one {@link EquivalentAddressGroup} per server, attributes for the
   * balancer, and optionally a service config. Immutable; thread-safe.
   */
  public static final class ResolutionResult {
    private final List<EquivalentAddressGroup> addresses;
    private final Attributes attributes;
    private final ConfigOrError serviceConfig;

    private ResolutionResult(Builder builder) {
      this.addresses = builder.addresses;
      this.attributes = builder.attributes;
      this.serviceConfig = builder.serviceConfig;
    }

    /** Returns a builder with no addresses, no attributes and no service config. */
    public static Builder newBuilder() {
      return new Builder();
    }

    /** The servers, in the resolver's order; unmodifiable. */
    public List<EquivalentAddressGroup> getAddresses() {
      return addresses;
    }

    /** Attributes for the balancer. */
    public Attributes getAttributes() {
      return attributes;
    }

    /** The service config the resolver found (or the error parsing it), or null if none. */
    public ConfigOrError getServiceConfig() {
      return serviceConfig;
    }

    @Override
    public String toString() {
      return "ResolutionResult{addresses="
          + addresses
          + ", attributes="
          + attributes
          + ", serviceConfig="
          + serviceConfig
          + "}";
    }

    /** Builds a {@link ResolutionResult}. Not thread-safe. */
    public static final class Builder {
      private List<EquivalentAddressGroup> addresses = List.of();
      private Attributes attributes = Attributes.EMPTY;
      private ConfigOrError serviceConfig;

      private Builder() {}

      /** The servers (copied); may be empty, which the balancer then reports as an error. */
      public Builder setAddresses(List<EquivalentAddressGroup> addresses) {
        this.addresses = List.copyOf(Objects.requireNonNull(addresses, "addresses"));
        return this;
      }

      public Builder setAttributes(Attributes attributes) {
        this.attributes = Objects.requireNonNull(attributes, "attributes");
        return this;
      }

      /** The service config, or null for none. */
      public Builder setServiceConfig(ConfigOrError serviceConfig) {
        this.serviceConfig = serviceConfig;
        return this;
      }

      public ResolutionResult build() {
        return new ResolutionResult(this);
      }
    }
  }

  /**
   * A parsed configuration, or the error that kept it from being parsed. Immutable; thread-safe.
   */
  public static final class ConfigOrError {
    private final Object config;
    private final Status error;

    private ConfigOrError(Object config, Status error) {
      this.config = config;
      this.error = error;
    }

    /** A successfully parsed configuration. */
    public static ConfigOrError fromConfig(Object config) {
      return new ConfigOrError(Objects.requireNonNull(config, "config"), null);
    }

    /**
     * A configuration that could not be parsed.
     *
     * @throws IllegalArgumentException if {@code error} is OK
     */
    public static ConfigOrError fromError(Status error) {
      Objects.requireNonNull(error, "error");
      if (error.isOk()) {
        throw new IllegalArgumentException("error must not be OK");
      }
      return new ConfigOrError(null, error);
    }

    /** The configuration, or null if parsing failed. */
    public Object getConfig() {
      return config;
    }

    /** The parse error, or null if parsing succeeded. */
    public Status getError() {
      return error;
    }

    @Override
    public String toString() {
      return error != null ? "ConfigOrError{error=" + error + "}" : "ConfigOrError{" + config + "}";
    }
  }

  /**
   * Parses a service config for the channel that made the resolver: checks it (method configs,
   * retry and hedging policies, the load-balancing config) and returns the channel's own form of
   * it, or an error naming the field that is wrong. Thread-safe.
   */
  public abstract static class ServiceConfigParser {
    /** For subclasses. */
    protected ServiceConfigParser() {}

    /**
     * @param rawServiceConfig the service config as JSON-like maps (from {@code JSON.parse} or
     *     built by hand)
     * @return the parsed config, or an error (never throws for a malformed config)
     */
    public abstract ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig);

    /**
     * Parses one {@code methodConfig} entry of a service config (its {@code name} list, if any, is
     * ignored) into the channel's own form, for a {@link ConfigSelector.Result}. Parse once, when
     * the configuration arrives, not per call.
     *
     * @param rawMethodConfig the entry as JSON-like maps: {@code timeout}, {@code waitForReady},
     *     {@code maxRequestMessageBytes}, {@code maxResponseMessageBytes}, {@code retryPolicy} or
     *     {@code hedgingPolicy}
     * @return the parsed config, opaque to the resolver
     * @throws IllegalArgumentException naming the field if the entry is not valid
     * @throws UnsupportedOperationException if this parser does not parse method configs (the
     *     default)
     */
    public Object parseMethodConfig(Map<String, ?> rawMethodConfig) {
      throw new UnsupportedOperationException(
          getClass().getName() + " does not parse method configs");
    }
  }

  /** The parser of {@link Args} built without one: it refuses every config. */
  private static final class NoServiceConfigParser extends ServiceConfigParser {
    static final NoServiceConfigParser INSTANCE = new NoServiceConfigParser();

    @Override
    public ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
      return ConfigOrError.fromError(
          Status.INTERNAL.withDescription("no service config parser was given to this resolver"));
    }
  }

  /**
   * What a channel gives the resolvers it creates. Immutable; thread-safe.
   *
   * <p>{@link #getDefaultPort()} is the port for targets that name none (443 for TLS channels, 80
   * for plaintext ones).
   */
  public static final class Args {
    private final int defaultPort;
    private final SynchronizationContext synchronizationContext;
    private final ScheduledExecutorService scheduledExecutorService;
    private final Executor offloadExecutor;
    private final ServiceConfigParser serviceConfigParser;
    private final ProxyDetector proxyDetector;
    private final MetricRecorder metricRecorder;

    private Args(Builder builder) {
      this.defaultPort = builder.defaultPort;
      this.synchronizationContext =
          Objects.requireNonNull(builder.synchronizationContext, "synchronizationContext");
      this.scheduledExecutorService =
          Objects.requireNonNull(builder.scheduledExecutorService, "scheduledExecutorService");
      this.offloadExecutor = Objects.requireNonNull(builder.offloadExecutor, "offloadExecutor");
      this.serviceConfigParser =
          builder.serviceConfigParser != null
              ? builder.serviceConfigParser
              : NoServiceConfigParser.INSTANCE;
      this.proxyDetector =
          builder.proxyDetector != null ? builder.proxyDetector : ProxyDetector.none();
      this.metricRecorder =
          builder.metricRecorder != null ? builder.metricRecorder : MetricRecorder.none();
    }

    /** Returns a builder; every field must be set. */
    public static Builder newBuilder() {
      return new Builder();
    }

    /** The port for targets that name none. */
    public int getDefaultPort() {
      return defaultPort;
    }

    /** The channel's synchronization context, which runs the resolver's and balancer's tasks. */
    public SynchronizationContext getSynchronizationContext() {
      return synchronizationContext;
    }

    /** A timer, for rate limits and retries (owned by the channel; do not shut it down). */
    public ScheduledExecutorService getScheduledExecutorService() {
      return scheduledExecutorService;
    }

    /** Where blocking work such as a DNS lookup runs (owned by the channel). */
    public Executor getOffloadExecutor() {
      return offloadExecutor;
    }

    /**
     * Turns a service config the resolver found (JSON already parsed into maps, lists, strings,
     * numbers and booleans) into the form the channel uses, for {@link
     * ResolutionResult.Builder#setServiceConfig}. Without one set, every config is refused.
     */
    public ServiceConfigParser getServiceConfigParser() {
      return serviceConfigParser;
    }

    /**
     * Whom to ask, for each server, whether to reach it through an HTTP CONNECT proxy (see {@link
     * ProxyDetector}): the channel's ({@link ManagedChannelBuilder#proxyDetector}), or {@link
     * ProxyDetector#none()} when none was set on these arguments.
     */
    public ProxyDetector getProxyDetector() {
      return proxyDetector;
    }

    /**
     * Where the resolver records its non-per-call metrics (gRFC A79; the xDS resolver's client
     * does): the channel's sinks, or none when not set on these arguments.
     */
    public MetricRecorder getMetricRecorder() {
      return metricRecorder;
    }

    @Override
    public String toString() {
      return "Args{defaultPort=" + defaultPort + "}";
    }

    /** Builds {@link Args}. Not thread-safe. */
    public static final class Builder {
      private int defaultPort = -1;
      private SynchronizationContext synchronizationContext;
      private ScheduledExecutorService scheduledExecutorService;
      private Executor offloadExecutor;
      private ServiceConfigParser serviceConfigParser;
      private ProxyDetector proxyDetector;
      private MetricRecorder metricRecorder;

      private Builder() {}

      /**
       * @throws IllegalArgumentException if {@code port} is not in 0..65535
       */
      public Builder setDefaultPort(int port) {
        if (port < 0 || port > 65535) {
          throw new IllegalArgumentException("defaultPort must be in 0..65535, was " + port);
        }
        this.defaultPort = port;
        return this;
      }

      public Builder setSynchronizationContext(SynchronizationContext context) {
        this.synchronizationContext = Objects.requireNonNull(context, "context");
        return this;
      }

      public Builder setScheduledExecutorService(ScheduledExecutorService timer) {
        this.scheduledExecutorService = Objects.requireNonNull(timer, "timer");
        return this;
      }

      public Builder setOffloadExecutor(Executor executor) {
        this.offloadExecutor = Objects.requireNonNull(executor, "executor");
        return this;
      }

      /** Optional; see {@link Args#getServiceConfigParser()}. */
      public Builder setServiceConfigParser(ServiceConfigParser parser) {
        this.serviceConfigParser = Objects.requireNonNull(parser, "parser");
        return this;
      }

      /** Optional; see {@link Args#getProxyDetector()}. */
      public Builder setProxyDetector(ProxyDetector detector) {
        this.proxyDetector = Objects.requireNonNull(detector, "detector");
        return this;
      }

      /** Optional; see {@link Args#getMetricRecorder()}. */
      public Builder setMetricRecorder(MetricRecorder recorder) {
        this.metricRecorder = Objects.requireNonNull(recorder, "recorder");
        return this;
      }

      /**
       * @throws NullPointerException if a component is missing
       * @throws IllegalArgumentException if the default port was not set
       */
      public Args build() {
        if (defaultPort < 0) {
          throw new IllegalArgumentException("defaultPort must be set");
        }
        return new Args(this);
      }
    }
  }
}
