package dev.tern;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Chooses, for each call, the server (the {@link Subchannel}) it goes to. A channel has one
 * balancer at a time, of the policy its service config or {@code defaultLoadBalancingPolicy} names.
 * The balancer receives the servers from the name resolver ({@link #acceptResolvedAddresses}),
 * creates and connects subchannels through its {@link Helper}, hears their state changes, and
 * publishes the channel's state together with a {@link SubchannelPicker} that the channel consults
 * for every call.
 *
 * <p>Threading: every method here, and every {@link SubchannelStateListener} callback, runs in the
 * channel's {@link Helper#getSynchronizationContext() synchronization context}, one at a time, so a
 * balancer needs no locks. Pickers run on the application's threads, concurrently, and must be
 * thread-safe, non-blocking, and should not allocate.
 */
public abstract class LoadBalancer {
  /**
   * The service config's {@code healthCheckConfig} object (gRFC A17), e.g. {@code {"serviceName":
   * "helloworld.Greeter"}}, as unmodifiable maps: the channel sets it on {@link
   * ResolvedAddresses#getAttributes()} when its service config has one, and leaves it out
   * otherwise. A balancer that checks its servers' health (client-side health checking) reads the
   * service name to watch from it; others ignore it.
   */
  public static final Attributes.Key<Map<String, ?>> ATTR_HEALTH_CHECKING_CONFIG =
      Attributes.Key.create("health-checking-config");

  /** For subclasses. */
  protected LoadBalancer() {}

  /**
   * The resolver's current servers. Returns OK if the balancer accepts them; a non-OK status (for
   * example UNAVAILABLE for an empty list) makes the channel treat the resolution as failed and ask
   * the resolver again after a back-off.
   */
  public abstract Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses);

  /**
   * The resolver failed. A balancer that still has servers keeps using them; one with none should
   * publish a picker that fails calls with {@code error}.
   */
  public abstract void handleNameResolutionError(Status error);

  /** Asks an IDLE balancer to start connecting (the channel wants a connection). */
  public void requestConnection() {}

  /** Shuts down the balancer and every subchannel it created. */
  public abstract void shutdown();

  /**
   * Lets the balancer create subchannels and publish its state. Implemented by the channel;
   * thread-safe, but meant to be used from the synchronization context.
   */
  public abstract static class Helper {
    /** For the channel. */
    protected Helper() {}

    /** A new, unconnected subchannel for {@code args}' addresses; start it before use. */
    public abstract Subchannel createSubchannel(CreateSubchannelArgs args);

    /**
     * Publishes the channel's state and the picker for new calls (and for the calls waiting for a
     * pick, which are picked again at once).
     */
    public abstract void updateBalancingState(ConnectivityState state, SubchannelPicker picker);

    /** Asks the name resolver to resolve again (a server failed or went away). */
    public abstract void refreshNameResolution();

    /**
     * Forgets the connection back-off of the channel's subchannels, for a balancer that learned of
     * a change that may let failed connections succeed now (new TLS settings for their servers,
     * say): a subchannel waiting out its back-off after a failure goes IDLE at once, so its
     * balancer can connect it again, and its next failure waits the initial back-off. Every
     * subchannel of the channel is reset, not only this balancer's. Unlike {@link
     * ManagedChannel#resetConnectBackoff()} it leaves the name resolver alone.
     *
     * <p>The channel's helper does it; a helper that wraps another must forward it. This default
     * does nothing.
     */
    public void resetConnectBackoff() {}

    /** The context that serializes the balancer's callbacks. */
    public abstract SynchronizationContext getSynchronizationContext();

    /** A timer for the balancer's own delays (owned by the channel; do not shut it down). */
    public abstract ScheduledExecutorService getScheduledExecutorService();

    /** The authority the channel's calls carry by default. */
    public abstract String getAuthority();

    /** The channel's target, as given to the builder. */
    public abstract String getChannelTarget();

    /**
     * Where the balancer records its non-per-call metrics (gRFC A79): the channel's {@link
     * MetricSink}s, and the channel's target for their {@code grpc.target} label. A helper that
     * wraps another must forward it. This default has no sinks.
     */
    public MetricRecorder getMetricRecorder() {
      return MetricRecorder.none();
    }
  }

  /**
   * A logical connection to one server: connects on request, reconnects after a back-off, and
   * reports its state to its listener. Created by {@link Helper#createSubchannel}; its methods are
   * called from the synchronization context.
   */
  public abstract static class Subchannel {
    /** For the channel. */
    protected Subchannel() {}

    /** Starts the subchannel; {@code listener} hears every state change. Called once. */
    public abstract void start(SubchannelStateListener listener);

    /** Shuts down: calls in flight finish, no new ones are sent; the listener hears SHUTDOWN. */
    public abstract void shutdown();

    /** Starts connecting if IDLE; no effect otherwise. */
    public abstract void requestConnection();

    /** The addresses it connects to. */
    public abstract List<EquivalentAddressGroup> getAllAddresses();

    /**
     * The one address group it connects to.
     *
     * @throws IllegalStateException if it has several
     */
    public EquivalentAddressGroup getAddresses() {
      List<EquivalentAddressGroup> all = getAllAddresses();
      if (all.size() != 1) {
        throw new IllegalStateException("subchannel has " + all.size() + " address groups");
      }
      return all.get(0);
    }

    /**
     * Replaces the addresses; a connection to an address still in the list is kept.
     *
     * @throws IllegalArgumentException if {@code addresses} is empty
     */
    public abstract void updateAddresses(List<EquivalentAddressGroup> addresses);

    /** The attributes given at creation. */
    public abstract Attributes getAttributes();

    /**
     * A channel whose calls go to this subchannel's server, over its current connection: for a
     * balancer's own calls to that one server, such as a health check's {@code Watch}. The calls
     * bypass the balancer, the service config (no method config, retry or hedging) and the
     * channel's interceptors; they keep the call options given (deadline, call credentials). A call
     * started while the subchannel is not READY fails at once with UNAVAILABLE, even a
     * wait-for-ready one; a connection lost later fails the call as it would fail any other. The
     * calls count toward the channel's idle timeout like other calls on the connection.
     *
     * <p>Thread-safe; the same channel every time. Never shut it down: it has no resources of its
     * own.
     *
     * @throws UnsupportedOperationException if the subchannel was not made by a channel (this
     *     default); the subchannels {@link Helper#createSubchannel} returns support it
     */
    public Channel asChannel() {
      throw new UnsupportedOperationException(
          getClass().getName() + " does not support asChannel()");
    }
  }

  /** Hears a subchannel's state changes, in the synchronization context. */
  public interface SubchannelStateListener {
    /** The subchannel's new state (SHUTDOWN last). */
    void onSubchannelState(ConnectivityStateInfo newState);
  }

  /**
   * Picks a subchannel for each call. Must be thread-safe and fast: it runs on the caller's thread
   * for every call, concurrently; it must not block, lock or (ideally) allocate.
   */
  public abstract static class SubchannelPicker {
    /** For subclasses. */
    protected SubchannelPicker() {}

    /** The decision for one call. Never null; must not throw. */
    public abstract PickResult pickSubchannel(PickSubchannelArgs args);
  }

  /**
   * A picker that gives every call the same result: an error while in TRANSIENT_FAILURE, no result
   * while CONNECTING, or the one READY subchannel. Immutable; thread-safe.
   */
  public static final class FixedResultPicker extends SubchannelPicker {
    private final PickResult result;

    /** A picker that always returns {@code result}. */
    public FixedResultPicker(PickResult result) {
      this.result = Objects.requireNonNull(result, "result");
    }

    @Override
    public PickResult pickSubchannel(PickSubchannelArgs args) {
      return result;
    }

    @Override
    public String toString() {
      return "FixedResultPicker{" + result + "}";
    }
  }

  /**
   * What a picker knows about the call it picks for. Implemented by the channel (the call object
   * itself, so picking allocates nothing).
   */
  public interface PickSubchannelArgs {
    /** The call's options. */
    CallOptions getCallOptions();

    /** The request headers (read-only). */
    Metadata getHeaders();

    /** The method called. */
    MethodDescriptor<?, ?> getMethodDescriptor();

    /**
     * Names an optional metric label of the attempt being picked for, as the picker knows it: gRFC
     * A78's {@link MetricInstruments#LOCALITY} (the picked endpoint's locality) or A89's {@link
     * MetricInstruments#BACKEND_SERVICE} (with xDS, the cluster's name). Call it on each pick
     * whatever the result, so that an attempt the pick fails (a drop) is labeled too; a later value
     * for the same key replaces the earlier one. The channel passes the labels to the attempt's
     * stream tracers ({@link ClientStreamTracer#addOptionalLabel}), where a metrics module records
     * the ones its user enabled.
     *
     * <p>Does nothing (and costs nothing) for a call without stream tracers; by default, does
     * nothing.
     *
     * @param key the label's name (null: ignored)
     * @param value its value, "" when unknown (null counts as "")
     */
    default void addOptionalLabel(String key, String value) {}
  }

  /**
   * A picker's decision: a subchannel, an error (fail-fast calls fail; wait-for-ready calls wait),
   * a drop (the call fails whatever its options), or no result yet (the call waits for the next
   * picker). Immutable; thread-safe; pickers may keep and reuse instances.
   */
  public static final class PickResult {
    private static final PickResult NO_RESULT = new PickResult(null, null, Status.OK, false);

    private final Subchannel subchannel;
    private final ClientStreamTracer.Factory streamTracerFactory;
    private final Status status;
    private final boolean drop;

    private PickResult(
        Subchannel subchannel,
        ClientStreamTracer.Factory streamTracerFactory,
        Status status,
        boolean drop) {
      this.subchannel = subchannel;
      this.streamTracerFactory = streamTracerFactory;
      this.status = status;
      this.drop = drop;
    }

    /**
     * Send the call to {@code subchannel}. If it is not READY by the time the call is sent, the
     * call waits for the next picker.
     */
    public static PickResult withSubchannel(Subchannel subchannel) {
      return withSubchannel(subchannel, null);
    }

    /** Like {@link #withSubchannel(Subchannel)}, with a tracer for the stream (may be null). */
    public static PickResult withSubchannel(
        Subchannel subchannel, ClientStreamTracer.Factory streamTracerFactory) {
      return new PickResult(
          Objects.requireNonNull(subchannel, "subchannel"), streamTracerFactory, Status.OK, false);
    }

    /**
     * Fail the call with {@code error} unless it is wait-for-ready (then it waits for the next
     * picker).
     *
     * @throws IllegalArgumentException if {@code error} is OK
     */
    public static PickResult withError(Status error) {
      return new PickResult(null, null, checkError(error), false);
    }

    /**
     * Fail the call with {@code status} even if it is wait-for-ready.
     *
     * @throws IllegalArgumentException if {@code status} is OK
     */
    public static PickResult withDrop(Status status) {
      return new PickResult(null, null, checkError(status), true);
    }

    /** No decision yet: the call waits for the next picker. */
    public static PickResult withNoResult() {
      return NO_RESULT;
    }

    private static Status checkError(Status status) {
      Objects.requireNonNull(status, "status");
      if (status.isOk()) {
        throw new IllegalArgumentException("status must not be OK");
      }
      return status;
    }

    /** The chosen subchannel, or null. */
    public Subchannel getSubchannel() {
      return subchannel;
    }

    /** The tracer factory for the stream, or null. */
    public ClientStreamTracer.Factory getStreamTracerFactory() {
      return streamTracerFactory;
    }

    /** The error for an error or drop; OK otherwise. */
    public Status getStatus() {
      return status;
    }

    /** Whether this is a drop. */
    public boolean isDrop() {
      return drop;
    }

    /** Whether this is {@link #withNoResult()}. */
    public boolean hasResult() {
      return this != NO_RESULT;
    }

    @Override
    public String toString() {
      if (subchannel != null) {
        return "PickResult{subchannel=" + subchannel + "}";
      }
      if (!status.isOk()) {
        return "PickResult{" + (drop ? "drop=" : "error=") + status + "}";
      }
      return "PickResult{no result}";
    }
  }

  /** What the resolver found, as the balancer receives it. Immutable; thread-safe. */
  public static final class ResolvedAddresses {
    private final List<EquivalentAddressGroup> addresses;
    private final Attributes attributes;
    private final Object loadBalancingPolicyConfig;

    private ResolvedAddresses(
        List<EquivalentAddressGroup> addresses, Attributes attributes, Object config) {
      this.addresses = addresses;
      this.attributes = attributes;
      this.loadBalancingPolicyConfig = config;
    }

    /** Returns a builder with no addresses, no attributes and no policy configuration. */
    public static Builder newBuilder() {
      return new Builder();
    }

    /** Returns a builder with this instance's values. */
    public Builder toBuilder() {
      return new Builder()
          .setAddresses(addresses)
          .setAttributes(attributes)
          .setLoadBalancingPolicyConfig(loadBalancingPolicyConfig);
    }

    /** The servers; unmodifiable; may be empty. */
    public List<EquivalentAddressGroup> getAddresses() {
      return addresses;
    }

    /** The resolver's attributes. */
    public Attributes getAttributes() {
      return attributes;
    }

    /** The policy's parsed configuration, or null if none. */
    public Object getLoadBalancingPolicyConfig() {
      return loadBalancingPolicyConfig;
    }

    @Override
    public String toString() {
      return "ResolvedAddresses{addresses="
          + addresses
          + ", attributes="
          + attributes
          + ", config="
          + loadBalancingPolicyConfig
          + "}";
    }

    /** Builds {@link ResolvedAddresses}. Not thread-safe. */
    public static final class Builder {
      private List<EquivalentAddressGroup> addresses = List.of();
      private Attributes attributes = Attributes.EMPTY;
      private Object config;

      private Builder() {}

      public Builder setAddresses(List<EquivalentAddressGroup> addresses) {
        this.addresses = List.copyOf(Objects.requireNonNull(addresses, "addresses"));
        return this;
      }

      public Builder setAttributes(Attributes attributes) {
        this.attributes = Objects.requireNonNull(attributes, "attributes");
        return this;
      }

      /** The policy's configuration, or null. */
      public Builder setLoadBalancingPolicyConfig(Object config) {
        this.config = config;
        return this;
      }

      public ResolvedAddresses build() {
        return new ResolvedAddresses(addresses, attributes, config);
      }
    }
  }

  /** What a new subchannel connects to. Immutable; thread-safe. */
  public static final class CreateSubchannelArgs {
    private final List<EquivalentAddressGroup> addresses;
    private final Attributes attributes;

    private CreateSubchannelArgs(List<EquivalentAddressGroup> addresses, Attributes attributes) {
      this.addresses = addresses;
      this.attributes = attributes;
    }

    /** Returns a builder; the addresses must be set. */
    public static Builder newBuilder() {
      return new Builder();
    }

    /** The address groups, tried in order. */
    public List<EquivalentAddressGroup> getAddresses() {
      return addresses;
    }

    /** Attributes for the balancer's own use ({@link Subchannel#getAttributes()}). */
    public Attributes getAttributes() {
      return attributes;
    }

    @Override
    public String toString() {
      return "CreateSubchannelArgs{addresses=" + addresses + ", attributes=" + attributes + "}";
    }

    /** Builds {@link CreateSubchannelArgs}. Not thread-safe. */
    public static final class Builder {
      private List<EquivalentAddressGroup> addresses;
      private Attributes attributes = Attributes.EMPTY;

      private Builder() {}

      /**
       * @throws IllegalArgumentException if {@code addresses} is empty
       */
      public Builder setAddresses(List<EquivalentAddressGroup> addresses) {
        Objects.requireNonNull(addresses, "addresses");
        if (addresses.isEmpty()) {
          throw new IllegalArgumentException("addresses must not be empty");
        }
        this.addresses = List.copyOf(addresses);
        return this;
      }

      /** A single address group. */
      public Builder setAddresses(EquivalentAddressGroup addresses) {
        return setAddresses(List.of(Objects.requireNonNull(addresses, "addresses")));
      }

      public Builder setAttributes(Attributes attributes) {
        this.attributes = Objects.requireNonNull(attributes, "attributes");
        return this;
      }

      /**
       * @throws IllegalStateException if the addresses were not set
       */
      public CreateSubchannelArgs build() {
        if (addresses == null) {
          throw new IllegalStateException("addresses must be set");
        }
        return new CreateSubchannelArgs(addresses, attributes);
      }
    }
  }
}
