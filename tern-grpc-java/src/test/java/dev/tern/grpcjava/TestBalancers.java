package dev.tern.grpcjava;

import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;
import io.grpc.NameResolver;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * grpc-java load balancers written against {@code io.grpc} only, as an application writes them, for
 * {@link GrpcJavaLoadBalancerTest}.
 */
final class TestBalancers {
  private TestBalancers() {}

  /** A provider of one name, always available, at grpc-java's usual priority. */
  abstract static class NamedProvider extends LoadBalancerProvider {
    private final String name;

    NamedProvider(String name) {
      this.name = name;
    }

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public int getPriority() {
      return 5;
    }

    @Override
    public String getPolicyName() {
      return name;
    }
  }

  /**
   * The shape of grpc-java's custom load balancer example: one subchannel over the resolver's
   * addresses shuffled with the config's {@code randomSeed}, connected pick-first; when it goes
   * IDLE, the picker asks it to connect again from the balancer's synchronization context. Every
   * subchannel state it hears is put in {@link #states}.
   */
  static final class ShufflingPickFirstProvider extends NamedProvider {
    static final String NAME = "test.ShufflingPickFirst";

    ShufflingPickFirstProvider() {
      super(NAME);
    }

    final BlockingQueue<ConnectivityState> states = new LinkedBlockingQueue<>();

    /** Given with each pick of the READY subchannel, if not null. */
    volatile ClientStreamTracer.Factory tracerFactory;

    @Override
    public NameResolver.ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> raw) {
      Object seed = raw.get("randomSeed");
      if (seed != null && !(seed instanceof Number)) {
        return NameResolver.ConfigOrError.fromError(
            Status.INVALID_ARGUMENT.withDescription("randomSeed must be a number, got " + seed));
      }
      return NameResolver.ConfigOrError.fromConfig(
          new Config(seed == null ? null : ((Number) seed).longValue()));
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new ShufflingPickFirst(helper, states, tracerFactory);
    }

    /** The server the balancer connects first with {@code seed}, among {@code servers}. */
    static InetSocketAddress firstOf(List<InetSocketAddress> servers, long seed) {
      List<InetSocketAddress> shuffled = new ArrayList<>(servers);
      Collections.shuffle(shuffled, new Random(seed));
      return shuffled.get(0);
    }
  }

  /** The parsed config: the seed, or null for a random one. */
  record Config(Long randomSeed) {}

  /** Not thread-safe: runs in its helper's synchronization context, as grpc-java requires. */
  private static final class ShufflingPickFirst extends LoadBalancer {
    private final Helper helper;
    private final BlockingQueue<ConnectivityState> states;
    private final ClientStreamTracer.Factory tracerFactory;
    private Subchannel subchannel;

    ShufflingPickFirst(
        Helper helper,
        BlockingQueue<ConnectivityState> states,
        ClientStreamTracer.Factory tracerFactory) {
      this.helper = helper;
      this.states = states;
      this.tracerFactory = tracerFactory;
    }

    @Override
    public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
      if (resolvedAddresses.getAddresses().isEmpty()) {
        return Status.UNAVAILABLE.withDescription("no servers");
      }
      Config config = (Config) resolvedAddresses.getLoadBalancingPolicyConfig();
      List<EquivalentAddressGroup> shuffled = new ArrayList<>(resolvedAddresses.getAddresses());
      Collections.shuffle(
          shuffled,
          config == null || config.randomSeed() == null
              ? new Random()
              : new Random(config.randomSeed()));
      if (subchannel != null) {
        subchannel.updateAddresses(shuffled);
        return Status.OK;
      }
      Subchannel created =
          helper.createSubchannel(CreateSubchannelArgs.newBuilder().setAddresses(shuffled).build());
      subchannel = created;
      created.start(state -> onSubchannelState(created, state));
      helper.updateBalancingState(
          ConnectivityState.CONNECTING, new FixedResultPicker(PickResult.withNoResult()));
      created.requestConnection();
      return Status.OK;
    }

    private void onSubchannelState(Subchannel from, ConnectivityStateInfo state) {
      states.add(state.getState());
      switch (state.getState()) {
        case READY ->
            helper.updateBalancingState(
                ConnectivityState.READY,
                new FixedResultPicker(PickResult.withSubchannel(from, tracerFactory)));
        case CONNECTING ->
            helper.updateBalancingState(
                ConnectivityState.CONNECTING, new FixedResultPicker(PickResult.withNoResult()));
        case TRANSIENT_FAILURE ->
            helper.updateBalancingState(
                ConnectivityState.TRANSIENT_FAILURE,
                new FixedResultPicker(PickResult.withError(state.getStatus())));
        case IDLE -> {
          helper.refreshNameResolution();
          helper.updateBalancingState(ConnectivityState.IDLE, new ConnectAgainPicker(from));
        }
        case SHUTDOWN -> {}
      }
    }

    /** Asks the subchannel to connect again, from the balancer's context, as grpc-java's do. */
    private final class ConnectAgainPicker extends SubchannelPicker {
      private final Subchannel idle;

      ConnectAgainPicker(Subchannel idle) {
        this.idle = idle;
      }

      @Override
      public PickResult pickSubchannel(PickSubchannelArgs args) {
        helper.getSynchronizationContext().execute(idle::requestConnection);
        return PickResult.withNoResult();
      }
    }

    @Override
    public void handleNameResolutionError(Status error) {
      if (subchannel == null) {
        helper.updateBalancingState(
            ConnectivityState.TRANSIENT_FAILURE,
            new FixedResultPicker(PickResult.withError(error)));
      }
    }

    @Override
    public void shutdown() {
      if (subchannel != null) {
        subchannel.shutdown();
      }
    }
  }

  /**
   * A balancer that publishes one picker whatever happens, from its config's {@code "pick"}: {@code
   * "error"} (PERMISSION_DENIED), {@code "drop"} (UNAVAILABLE), {@code "throw"} (a picker that
   * throws), {@code "foreign"} (a subchannel its helper did not make), {@code "oob"} (asks its
   * helper for an out-of-band channel).
   */
  static final class FixedPickProvider extends NamedProvider {
    static final String NAME = "test.FixedPick";

    FixedPickProvider() {
      super(NAME);
    }

    @Override
    public NameResolver.ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> raw) {
      return NameResolver.ConfigOrError.fromConfig(String.valueOf(raw.get("pick")));
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new LoadBalancer() {
        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolvedAddresses) {
          String pick = (String) resolvedAddresses.getLoadBalancingPolicyConfig();
          if (pick.equals("oob")) {
            helper.createOobChannel(resolvedAddresses.getAddresses().get(0), "oob.example");
          }
          helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE, picker(pick));
          return Status.OK;
        }

        @Override
        public void handleNameResolutionError(Status error) {}

        @Override
        public void shutdown() {}
      };
    }

    private static LoadBalancer.SubchannelPicker picker(String pick) {
      return switch (pick) {
        case "error" ->
            new LoadBalancer.FixedResultPicker(
                LoadBalancer.PickResult.withError(
                    Status.PERMISSION_DENIED.withDescription("over quota")));
        case "drop" ->
            new LoadBalancer.FixedResultPicker(
                LoadBalancer.PickResult.withDrop(
                    Status.UNAVAILABLE.withDescription("dropped by the balancer")));
        case "foreign" ->
            new LoadBalancer.FixedResultPicker(
                LoadBalancer.PickResult.withSubchannel(new ForeignSubchannel()));
        default ->
            new LoadBalancer.SubchannelPicker() {
              @Override
              public LoadBalancer.PickResult pickSubchannel(LoadBalancer.PickSubchannelArgs args) {
                throw new IllegalStateException("picker bug");
              }
            };
      };
    }
  }

  /** A subchannel no helper made. */
  private static final class ForeignSubchannel extends LoadBalancer.Subchannel {
    @Override
    public void shutdown() {}

    @Override
    public void requestConnection() {}

    @Override
    public io.grpc.Attributes getAttributes() {
      return io.grpc.Attributes.EMPTY;
    }

    @Override
    public String toString() {
      return "ForeignSubchannel";
    }
  }
}
