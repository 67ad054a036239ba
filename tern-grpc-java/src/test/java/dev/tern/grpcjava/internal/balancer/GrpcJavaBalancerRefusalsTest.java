package dev.tern.grpcjava.internal.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * What a grpc-java balancer may ask that Tern's channel cannot give: each fails naming the method
 * or the pick, never silently. The end-to-end cases (on a real channel) are in {@code
 * GrpcJavaLoadBalancerTest}.
 */
class GrpcJavaBalancerRefusalsTest {
  private final GrpcJavaHelper helper = new GrpcJavaHelper("test.policy", new UnusedTernHelper());
  private final io.grpc.EquivalentAddressGroup group =
      new io.grpc.EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", 1));

  @Test
  void helperMethodsWithoutATernEquivalentThrowNamingThem() {
    Map<String, ThrowingCallable> calls =
        Map.of(
            "createOobChannel",
            () -> helper.createOobChannel(group, "a"),
            "updateOobChannelAddresses",
            () -> helper.updateOobChannelAddresses(null, group),
            "createResolvingOobChannel",
            () -> helper.createResolvingOobChannel("dns:///a"),
            "createResolvingOobChannelBuilder",
            () -> helper.createResolvingOobChannelBuilder("dns:///a", null),
            "getChannelCredentials",
            helper::getChannelCredentials,
            "getUnsafeChannelCredentials",
            helper::getUnsafeChannelCredentials,
            "getNameResolverArgs",
            helper::getNameResolverArgs,
            "getNameResolverRegistry",
            helper::getNameResolverRegistry);
    calls.forEach(
        (method, call) ->
            assertThatThrownBy(call)
                .as(method)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageStartingWith(
                    "grpc-java load balancer test.policy called LoadBalancer.Helper."
                        + method
                        + ","));
  }

  @Test
  void aPickWithAnAuthorityOverrideDropsTheCallNamingIt() {
    io.grpc.LoadBalancer.Subchannel subchannel =
        helper.createSubchannel(
            io.grpc.LoadBalancer.CreateSubchannelArgs.newBuilder().setAddresses(group).build());
    GrpcJavaPicker picker =
        new GrpcJavaPicker(
            "test.policy",
            new io.grpc.LoadBalancer.FixedResultPicker(
                io.grpc.LoadBalancer.PickResult.withSubchannel(subchannel, null, "other.example")));

    dev.tern.LoadBalancer.PickResult result = picker.pickSubchannel(null);

    assertThat(result.isDrop()).isTrue();
    assertThat(result.getStatus().getCode()).isEqualTo(dev.tern.Status.Code.INTERNAL);
    assertThat(result.getStatus().getDescription())
        .isEqualTo(
            "grpc-java load balancer test.policy: it picked with an authority override"
                + " (other.example), which Tern's picks do not have");
    assertThatThrownBy(subchannel::asChannel)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Subchannel.asChannel");
  }

  @Test
  void aProviderThatThrowsParsingItsConfigRefusesTheConfig() {
    GrpcJavaLoadBalancerProvider provider =
        new GrpcJavaLoadBalancerProvider(
            new io.grpc.LoadBalancerProvider() {
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
                return "test.throwing";
              }

              @Override
              public io.grpc.NameResolver.ConfigOrError parseLoadBalancingPolicyConfig(
                  Map<String, ?> raw) {
                throw new ClassCastException("weight is not a number");
              }

              @Override
              public io.grpc.LoadBalancer newLoadBalancer(io.grpc.LoadBalancer.Helper helper) {
                throw new AssertionError("not built here");
              }
            });

    dev.tern.Status error =
        provider.parseLoadBalancingPolicyConfig(Map.of("weight", "x")).getError();

    assertThat(error.getCode()).isEqualTo(dev.tern.Status.Code.INVALID_ARGUMENT);
    assertThat(error.getDescription())
        .contains("test.throwing")
        .contains("{weight=x}")
        .contains("weight is not a number");
  }

  /**
   * A Tern helper for adapters that are only asked what cannot map: it makes subchannels in a
   * context of its own and refuses everything else.
   */
  private static final class UnusedTernHelper extends dev.tern.LoadBalancer.Helper {
    private final dev.tern.SynchronizationContext context =
        new dev.tern.SynchronizationContext(
            (thread, failure) -> {
              throw new AssertionError(failure);
            });

    @Override
    public dev.tern.LoadBalancer.Subchannel createSubchannel(
        dev.tern.LoadBalancer.CreateSubchannelArgs args) {
      return new dev.tern.LoadBalancer.Subchannel() {
        @Override
        public void start(dev.tern.LoadBalancer.SubchannelStateListener listener) {}

        @Override
        public void shutdown() {}

        @Override
        public void requestConnection() {}

        @Override
        public List<dev.tern.EquivalentAddressGroup> getAllAddresses() {
          return args.getAddresses();
        }

        @Override
        public void updateAddresses(List<dev.tern.EquivalentAddressGroup> addresses) {}

        @Override
        public dev.tern.Attributes getAttributes() {
          return args.getAttributes();
        }
      };
    }

    @Override
    public void updateBalancingState(
        dev.tern.ConnectivityState state, dev.tern.LoadBalancer.SubchannelPicker picker) {
      throw new AssertionError("no state expected");
    }

    @Override
    public void refreshNameResolution() {
      throw new AssertionError("no refresh expected");
    }

    @Override
    public dev.tern.SynchronizationContext getSynchronizationContext() {
      return context;
    }

    @Override
    public ScheduledExecutorService getScheduledExecutorService() {
      throw new AssertionError("no timer expected");
    }

    @Override
    public String getAuthority() {
      return "test.example";
    }

    @Override
    public String getChannelTarget() {
      return "test:///target";
    }
  }
}
