package dev.tern.xds.internal.lb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ConnectivityState;
import dev.tern.LoadBalancer;
import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.testing.TestMarshallers;
import dev.tern.xds.internal.XdsAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/** The cluster manager with stand-in children: config parsing, routing by selection, state. */
class ClusterManagerLoadBalancerTest {
  /** Children of policy "child": each remembers its config and publishes what the test says. */
  static final class ChildProvider extends LoadBalancerProvider {
    final Map<Object, LoadBalancer.Helper> helpers = new HashMap<>();
    final List<Object> shutDown = new ArrayList<>();

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
      return "child";
    }

    @Override
    public ConfigOrError parseLoadBalancingPolicyConfig(Map<String, ?> raw) {
      return ConfigOrError.fromConfig(raw.get("name"));
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
      return new LoadBalancer() {
        Object name;

        @Override
        public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
          name = resolved.getLoadBalancingPolicyConfig();
          helpers.put(name, helper);
          return Status.OK;
        }

        @Override
        public void handleNameResolutionError(Status error) {}

        @Override
        public void shutdown() {
          shutDown.add(name);
        }
      };
    }
  }

  private static final class RecordingHelper extends LoadBalancer.Helper {
    ConnectivityState state;
    LoadBalancer.SubchannelPicker picker;

    @Override
    public LoadBalancer.Subchannel createSubchannel(LoadBalancer.CreateSubchannelArgs args) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void updateBalancingState(ConnectivityState s, LoadBalancer.SubchannelPicker p) {
      state = s;
      picker = p;
    }

    @Override
    public void refreshNameResolution() {}

    @Override
    public SynchronizationContext getSynchronizationContext() {
      return new SynchronizationContext((t, e) -> {});
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      throw new UnsupportedOperationException();
    }

    @Override
    public String getAuthority() {
      return "svc";
    }

    @Override
    public String getChannelTarget() {
      return "xds:///svc";
    }
  }

  private static Map<String, ?> config(String... clusters) {
    Map<String, Object> children = new HashMap<>();
    for (String c : clusters) {
      children.put(
          "cluster:" + c,
          List.of(Map.of("not_registered", Map.of()), Map.of("child", Map.of("name", c))));
    }
    return Map.of("childPolicy", children);
  }

  private static LoadBalancer.PickSubchannelArgs pick(String selection) {
    CallOptions options =
        selection == null
            ? CallOptions.DEFAULT
            : CallOptions.DEFAULT.withOption(XdsAttributes.CLUSTER_SELECTION, selection);
    MethodDescriptor<byte[], byte[]> method =
        MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
            .setFullMethodName("s/m")
            .setType(MethodDescriptor.MethodType.UNARY)
            .build();
    return new LoadBalancer.PickSubchannelArgs() {
      @Override
      public CallOptions getCallOptions() {
        return options;
      }

      @Override
      public Metadata getHeaders() {
        return new Metadata();
      }

      @Override
      public MethodDescriptor<?, ?> getMethodDescriptor() {
        return method;
      }
    };
  }

  private static LoadBalancer.SubchannelPicker fixed(String description) {
    return new LoadBalancer.FixedResultPicker(
        LoadBalancer.PickResult.withError(Status.UNAVAILABLE.withDescription(description)));
  }

  @Test
  void routesPicksByTheCallsSelectionAndAggregatesState() {
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    ChildProvider children = new ChildProvider();
    registry.register(children);
    ClusterManagerLoadBalancerProvider provider = new ClusterManagerLoadBalancerProvider(registry);
    ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(config("A", "B"));
    assertThat(parsed.getError()).isNull();
    RecordingHelper helper = new RecordingHelper();
    LoadBalancer lb = provider.newLoadBalancer(helper);
    lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(List.of())
            .setLoadBalancingPolicyConfig(parsed.getConfig())
            .build());
    // New children start CONNECTING, and their picks wait.
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING);
    assertThat(helper.picker.pickSubchannel(pick("cluster:A")).hasResult()).isFalse();

    children.helpers.get("A").updateBalancingState(ConnectivityState.TRANSIENT_FAILURE, fixed("a"));
    assertThat(helper.state).isEqualTo(ConnectivityState.CONNECTING); // B still connecting
    children.helpers.get("B").updateBalancingState(ConnectivityState.READY, fixed("b"));
    assertThat(helper.state).isEqualTo(ConnectivityState.READY);
    assertThat(helper.picker.pickSubchannel(pick("cluster:A")).getStatus().getDescription())
        .isEqualTo("a");
    assertThat(helper.picker.pickSubchannel(pick("cluster:B")).getStatus().getDescription())
        .isEqualTo("b");
    assertThat(helper.picker.pickSubchannel(pick("cluster:Z")).getStatus().getDescription())
        .isEqualTo("xds cluster manager: no child for \"cluster:Z\"");
    assertThat(helper.picker.pickSubchannel(pick(null)).getStatus().getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    children.helpers.get("B").updateBalancingState(ConnectivityState.IDLE, fixed("b"));
    assertThat(helper.state).isEqualTo(ConnectivityState.IDLE);
    children.helpers.get("B").updateBalancingState(ConnectivityState.TRANSIENT_FAILURE, fixed("b"));
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);

    // A child that leaves the config is shut down at once; its stale helper is ignored.
    LoadBalancer.Helper staleA = children.helpers.get("A");
    lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(List.of())
            .setLoadBalancingPolicyConfig(
                provider.parseLoadBalancingPolicyConfig(config("B")).getConfig())
            .build());
    assertThat(children.shutDown).containsExactly("A");
    staleA.updateBalancingState(ConnectivityState.READY, fixed("a"));
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.picker.pickSubchannel(pick("cluster:A")).getStatus().getDescription())
        .contains("no child for \"cluster:A\"");
    lb.shutdown();
    assertThat(children.shutDown).containsExactly("A", "B");
  }

  @Test
  void configErrorsNameTheChild() {
    LoadBalancerRegistry registry = new LoadBalancerRegistry();
    ClusterManagerLoadBalancerProvider provider = new ClusterManagerLoadBalancerProvider(registry);
    assertThat(provider.parseLoadBalancingPolicyConfig(config("A")).getError().getDescription())
        .isEqualTo(
            "xds_cluster_manager_experimental: childPolicy.cluster:A: names no registered policy:"
                + " asked for [not_registered, child]");
    assertThat(provider.parseLoadBalancingPolicyConfig(Map.of()).getError().getDescription())
        .contains("childPolicy: must be an object");
  }

  @Test
  void noChildrenIsTransientFailure() {
    ClusterManagerLoadBalancerProvider provider =
        new ClusterManagerLoadBalancerProvider(new LoadBalancerRegistry());
    RecordingHelper helper = new RecordingHelper();
    LoadBalancer lb = provider.newLoadBalancer(helper);
    lb.acceptResolvedAddresses(
        LoadBalancer.ResolvedAddresses.newBuilder()
            .setAddresses(List.of())
            .setLoadBalancingPolicyConfig(
                provider
                    .parseLoadBalancingPolicyConfig(Map.of("childPolicy", Map.of()))
                    .getConfig())
            .build());
    assertThat(helper.state).isEqualTo(ConnectivityState.TRANSIENT_FAILURE);
    assertThat(helper.picker.pickSubchannel(pick("cluster:A")).getStatus().getDescription())
        .isEqualTo("xds cluster manager: no clusters in the config");
  }
}
